import { archiverErrorCode } from "../../errors";
import type { CopiedDayRecord } from "../../model/copied-day-record";
import type { RunCounts } from "../../model/run";
import { type TaskPayload, taskKey } from "../../model/task";
import type { CleanupTaskReport } from "../cleanup/partition/clean-partition-task";
import { finishRun, type RunDeps } from "./run-deps";

/** How a task finished for good: done (with what it returned), or failed (refused, invalid, out of attempts). */
export type TaskEnding =
  | { readonly kind: "copied"; readonly record: CopiedDayRecord }
  | { readonly kind: "cleaned"; readonly report: CleanupTaskReport }
  | { readonly kind: "failed"; readonly error: unknown };

/** What one task's end adds to its run's counts. */
export function taskEndCounts(ending: TaskEnding): Partial<RunCounts> {
  if (ending.kind === "copied") return { copied: 1, rows: ending.record.figures.rows };
  if (ending.kind === "failed") {
    // A refused day is judged by its code, as every runner judges errors: its rows are kept, not lost.
    return archiverErrorCode(ending.error) === "VERIFICATION_FAILED" ? { refused: 1 } : { failed: 1 };
  }
  const { outcome, rowsDeleted, partition, waitedByReason } = ending.report;
  const waited = { waitedMsByReason: waitedByReason as Readonly<Record<string, number>> };
  if (outcome === "deferred") return { deferred: 1, rows: rowsDeleted, ...waited };
  if (outcome === "cleaned") {
    // A partition emptied at once cleans all its days in one task.
    const days = partition?.outcome === "cleaned" ? partition.days.length : 1;
    return { cleaned: days, rows: rowsDeleted, ...waited };
  }
  // Already clean, or done by an earlier delivery: clean, and its rows were counted where they were deleted.
  return { cleaned: 1, ...waited };
}

/**
 * Counts a task that is finished for good in its run (the task's `run`; a
 * task without one, queued before runs were recorded, counts nowhere) and,
 * when it was the run's last, finishes the run (finishRun). The one place
 * both task runners call: the HTTP task handler and the local worker.
 */
export async function recordTaskEnd(deps: RunDeps, task: TaskPayload, ending: TaskEnding): Promise<void> {
  if (task.run === undefined) return;
  const finished = await deps.history.taskEnded(task.run, {
    task: taskKey(task),
    endedAt: deps.clock().toISOString(),
    counts: taskEndCounts(ending),
  });
  if (finished) await finishRun(deps, finished);
}
