import {
  type CleanupTaskReport,
  cleanDay,
  cleanPartitionTask,
  copyDay,
  isPartitionTask,
  type TaskPayload,
} from "@table-archiver/core";
import type { CopiedDayRecord } from "@table-archiver/core/ports";
import type { Runtime } from "@table-archiver/core/runtime";

export type TaskResult =
  | { readonly kind: "copy"; readonly task: TaskPayload; readonly record: CopiedDayRecord }
  | { readonly kind: "clean"; readonly task: TaskPayload; readonly report: CleanupTaskReport };

/**
 * Runs one queued task, already validated by parseTaskPayload: a day's copy,
 * a day's cleanup, or a partition's cleanup, each its own kind of work. Used
 * by the HTTP function and by the local worker, so both run the same code.
 * Telling the queue's bookkeeping that a task is finished for good is the
 * caller's part: the local worker does it once BullMQ has settled the job,
 * the HTTP function once it answers.
 */
export async function handleTask(runtime: Runtime, task: TaskPayload): Promise<TaskResult> {
  if (task.kind === "copy") {
    return { kind: "copy", task, record: await copyDay(runtime.copy, task) };
  }
  if (isPartitionTask(task)) {
    return { kind: "clean", task, report: await cleanPartitionTask(runtime.cleanup, task) };
  }
  return { kind: "clean", task, report: await cleanDay(runtime.cleanup, task) };
}
