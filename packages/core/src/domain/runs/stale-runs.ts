import type { RunMode, RunRecord } from "../../model/run";
import type { OpenRun } from "../../ports/run-history";
import { finishRun, type RunDeps } from "./run-deps";

/**
 * Whether an open run will hear nothing more: its last news is older than
 * `staleAfterMs`, the whole window in which its tasks may still run and
 * retry. Each task that runs again reports its end (or its last attempt's
 * failure), so silence past that window means an end was lost: its last
 * attempt could not reach Redis, or its process died. An unlimited window
 * (Infinity) or an unreadable instant is never stale.
 */
export function isStale(run: Pick<OpenRun, "lastNewsAt">, now: Date, staleAfterMs: number): boolean {
  const last = Date.parse(run.lastNewsAt);
  if (Number.isNaN(last) || !Number.isFinite(staleAfterMs)) return false;
  return now.getTime() - last > staleAfterMs;
}

/**
 * Ends, as `failed`, the open runs of `table` and `mode` that are stale
 * (isStale, by `deps.staleAfterMs`): each of their unended tasks is counted
 * failed at the clock's instant, which finishes the run as its last task
 * would have, its row written to the warehouse and its `run ended` line
 * logged (finishRun). A task of such a run that reports later counts
 * nothing (a task counts once, and the run is finished). Called as a run of
 * the same table and mode begins; absent a window, nothing is ended. A
 * failure here is logged and the new run goes on: it is housekeeping.
 */
export async function endStaleRuns(deps: RunDeps, table: string, mode: RunMode): Promise<void> {
  const window = deps.staleAfterMs;
  if (window === undefined) return;
  try {
    const now = deps.clock();
    const open = await deps.history.openRuns(table, mode);
    for (const run of open.filter((candidate) => isStale(candidate, now, window))) {
      await endStaleRun(deps, run, now.toISOString(), window);
    }
  } catch (error) {
    deps.logger.error("run history: earlier open runs could not be checked for an end", {
      table,
      mode,
      error,
    });
  }
}

async function endStaleRun(deps: RunDeps, run: OpenRun, at: string, window: number): Promise<void> {
  deps.logger.warn("run history: a run heard nothing for longer than its tasks can retry; ended as failed", {
    runId: run.start.id,
    table: run.start.table,
    mode: run.start.mode,
    lastNewsAt: run.lastNewsAt,
    unended: run.unended.length,
    staleAfterMs: window,
  });
  let finished: RunRecord | undefined;
  for (const task of run.unended) {
    const end = { task, endedAt: at, counts: { failed: 1 } };
    finished = (await deps.history.taskEnded(run.start.id, end)) ?? finished;
  }
  if (finished) await finishRun(deps, finished);
}
