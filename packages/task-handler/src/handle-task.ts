import { cleanDay, copyDay, type DayCleanupReport, type TaskPayload } from "@table-archiver/core";
import type { CopiedDayRecord } from "@table-archiver/core/ports";
import type { Runtime } from "@table-archiver/core/runtime";

export type TaskResult =
  | { readonly kind: "copy"; readonly task: TaskPayload; readonly record: CopiedDayRecord }
  | { readonly kind: "clean"; readonly task: TaskPayload; readonly report: DayCleanupReport };

/**
 * Runs one queued task, already validated by parseTaskPayload. Used by the
 * HTTP function and by the local worker, so both run the same code. Telling
 * the queue's bookkeeping that a task is finished for good is the caller's
 * part: the local worker does it once BullMQ has settled the job, the HTTP
 * function once it answers.
 */
export async function handleTask(runtime: Runtime, task: TaskPayload): Promise<TaskResult> {
  if (task.kind === "copy") {
    return { kind: "copy", task, record: await copyDay(runtime.copy, task) };
  }
  return { kind: "clean", task, report: await cleanDay(runtime.cleanup, task) };
}
