import type { DestinationRules } from "../../model/destination";
import type { RunRecord } from "../../model/run";
import type { Clock } from "../../ports/clock";
import type { Logger } from "../../ports/logger";
import type { RunHistory } from "../../ports/run-history";
import type { Warehouse } from "../../ports/warehouse";

/** What starting, counting and finishing runs use. */
export interface RunDeps {
  readonly history: RunHistory;
  /** Where finished runs are appended (`_archiver_runs`), opened on first use. */
  readonly warehouse: () => Promise<Warehouse>;
  readonly logger: Logger;
  readonly clock: Clock;
  /** The default dataset: a cleanup run's history row goes there. */
  readonly destinations: DestinationRules;
  /**
   * How long an open run may hear nothing before the next run of its table
   * and mode ends it as failed (endStaleRuns): longer than its tasks can
   * still run and retry. Absent, or Infinity, no run is ended that way.
   */
  readonly staleAfterMs?: number;
  /** A new run's id; a random UUID unless a test fixes it. */
  readonly newRunId?: () => string;
}

/**
 * Ends a finished run: appends it to the warehouse's run history and logs
 * one line `run ended` with the record (log-based metrics and alerts count
 * on its `table`, `mode`, `result`, `rows`, `refused`, `deferred`, `failed`
 * and `policy`). The line goes out even when the warehouse write fails: the
 * run is finished in Redis by then and no later call would write it again,
 * so the line, with `recorded: false`, is what is left of it.
 */
export async function finishRun(deps: RunDeps, run: RunRecord): Promise<void> {
  let recorded = true;
  try {
    const warehouse = await deps.warehouse();
    await warehouse.recordRun(run.project ? { project: run.project, dataset: run.dataset } : run, run);
  } catch (error) {
    recorded = false;
    deps.logger.error("run history: the finished run could not be written to the warehouse", {
      runId: run.id,
      table: run.table,
      mode: run.mode,
      dataset: run.dataset,
      error,
    });
  }
  const { id, ...fields } = run;
  deps.logger.info("run ended", { runId: id, ...fields, policy: run.policy ?? null, recorded });
}
