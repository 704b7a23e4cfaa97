import type { RunCounts, RunRecord, RunStart } from "../model/run";
import type { DatasetRef } from "./day-record";

/** What became of one task of a run, once it is finished for good. */
export interface RunTaskEnd {
  /** The task's identity (taskKey): a second end of the same task is not counted. */
  readonly task: string;
  /** ISO instant it ended. */
  readonly endedAt: string;
  /** What it adds to the run's counts (a copied day, a refused one, the rows...). */
  readonly counts: Partial<RunCounts>;
}

/**
 * The live side of the run history: counts a run's tasks as they end, and
 * tells whoever ends the last one that the run is finished.
 *
 * Guarantees: each task of a run (by its key, taskKey) counts once however
 * often it is reported ended (a retry, a second delivery); the finished
 * record is answered exactly once, by whichever call leaves none of the
 * run's queued tasks unended once the run has begun (tasks may end before
 * their run's `begin` is recorded: they count all the same). Counting is
 * atomic across processes.
 *
 * Leaves out: keeping finished runs (the warehouse's RunRecordStore does;
 * the live counts expire some days after the run's last news), and runs a
 * queued task never ends: a task lost for good, or one another run queued
 * in the instant between the queue being asked and the enqueue (callers
 * leave out the tasks the queue already holds), leaves its run unfinished,
 * and no row.
 */
export interface RunHistory {
  /**
   * Records that `run` queued the tasks keyed `tasks`, with what it counted
   * before any ran (days refused up front; a dry run's verified and refused
   * days). `at` is the instant it finished queueing: the run's end when it
   * queued nothing. Answers the finished record when nothing is left to end.
   */
  begin(
    run: RunStart,
    tasks: readonly string[],
    counts: RunCounts,
    at: string,
  ): Promise<RunRecord | undefined>;
  /**
   * Adds the tasks keyed `tasks` to the run, queued by one of its running
   * tasks (a partition sending its days down the chunked path). Call it
   * before queueing them, so none can end the run first; calling it again
   * with the same keys (a retried task) adds nothing.
   */
  queuedMore(runId: string, tasks: readonly string[]): Promise<RunRecord | undefined>;
  /** Counts one task's end; answers the finished record when it was the run's last. */
  taskEnded(runId: string, end: RunTaskEnd): Promise<RunRecord | undefined>;
}

/**
 * The durable run history a warehouse keeps beside its day record: the table
 * `_archiver_runs` of a dataset, one row per finished run, only ever appended.
 *
 * Guarantees: a run `recordRun` returned for is read back by every later
 * `runs` of its dataset (and its table), newest start first.
 *
 * Leaves out: runs that never finished, and removing rows.
 */
export interface RunRecordStore {
  recordRun(at: DatasetRef, run: RunRecord): Promise<void>;
  /** The latest `limit` runs (of `table`, when given), newest start first; [] when the dataset has none. */
  runs(at: DatasetRef, options?: { readonly table?: string; readonly limit?: number }): Promise<RunRecord[]>;
}
