import type { RunCounts, RunMode, RunRecord, RunStart } from "../model/run";
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
 * the live counts expire some days after the run's last news), and deciding
 * when a run will get no more news. A queued task that never reports its end
 * (its last attempt could not reach Redis, its process died, or another run
 * queued it in the instant between the queue being asked and the enqueue)
 * leaves its run open here; `openRuns` lists such runs, and the next run of
 * the same table and mode ends one whose news is older than its tasks'
 * whole retry window (see endStaleRuns), counting its unended tasks failed.
 * A last attempt cut off by the queue's dispatch deadline is counted failed
 * by the task handler itself just before it (see armLastAttemptDeadline).
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
  /**
   * The runs of `table` and `mode` that have begun and not finished, any
   * order: each with its start, the instant of its last news and the keys of
   * its tasks not ended yet. A run whose live counts expired is not listed.
   */
  openRuns(table: string, mode: RunMode): Promise<OpenRun[]>;
}

/** A run that has begun and not finished, as RunHistory.openRuns lists it. */
export interface OpenRun {
  readonly start: RunStart;
  /** ISO instant of its latest news: its begin, or the latest end of one of its tasks. */
  readonly lastNewsAt: string;
  /** Keys (taskKey) of the tasks it queued that have not ended. */
  readonly unended: readonly string[];
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
