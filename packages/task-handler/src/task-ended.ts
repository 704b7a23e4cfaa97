import { recordTaskEnd, type TaskEnding, type TaskPayload } from "@table-archiver/core";
import type { Runtime } from "@table-archiver/core/runtime";
import type { TaskResult } from "./handle-task";

/** A task's result as its run counts it. */
export function endingOf(result: TaskResult): TaskEnding {
  return result.kind === "copy"
    ? { kind: "copied", record: result.record }
    : { kind: "cleaned", report: result.report };
}

/**
 * Tells the task's run that the task is finished for good (done, refused,
 * invalid, or out of attempts), which finishes the run when it was its last
 * (see recordTaskEnd): the one call both runners make, the HTTP function
 * once it settles the task, the local worker once BullMQ has. Counting the
 * same task again (a second delivery) does nothing. It throws what Redis
 * throws; a caller that already has an error to report logs it instead
 * (see countTaskEnd).
 */
export function taskEnded(runtime: Runtime, task: TaskPayload, ending: TaskEnding): Promise<void> {
  return recordTaskEnd(runtime.runs, task, ending);
}

/**
 * taskEnded for a caller that must not throw: a failure to count is logged,
 * and the run is left to the next run of its table and mode, which ends it
 * as failed once it is stale (endStaleRuns).
 */
export async function countTaskEnd(runtime: Runtime, task: TaskPayload, ending: TaskEnding): Promise<void> {
  try {
    await taskEnded(runtime, task, ending);
  } catch (error) {
    runtime.logger.error("run history: a task's end could not be counted in its run", {
      run: task.run,
      kind: task.kind,
      table: task.table,
      day: task.day,
      error,
    });
  }
}
