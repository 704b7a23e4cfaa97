import type { TaskPayload } from "@table-archiver/core";
import pLimit from "p-limit";

/**
 * Wraps a task processor so that at most `concurrency` cleanup tasks run at
 * once; copy tasks pass straight through. More delete transactions at once
 * than the server has cores to spare turn short chunks into long stalls
 * (docs/cleanup.md, "How many at once").
 */
export function limitCleanup<R>(
  concurrency: number,
  process: (task: TaskPayload) => Promise<R>,
): (task: TaskPayload) => Promise<R> {
  const slot = pLimit(concurrency);
  return (task) => (task.kind === "clean" ? slot(() => process(task)) : process(task));
}
