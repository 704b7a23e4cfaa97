/** What a run did: copy days (a migration message) or clean them (a cleanup message). */
export type RunMode = "migration" | "cleanup";

/**
 * How a run ended: `failed` when a task failed for good, else `partial` when a
 * day was refused or deferred, else `succeeded`.
 */
export type RunResult = "succeeded" | "partial" | "failed";

/** Days counted by what became of them, and the rows copied or deleted. */
export interface RunCounts {
  readonly copied: number;
  /** Days cleaned (a partition emptied at once counts its days), or already clean; a dry run: days verified. */
  readonly cleaned: number;
  readonly refused: number;
  readonly deferred: number;
  readonly failed: number;
  /** Rows copied (migration) or deleted (cleanup). */
  readonly rows: number;
  /** Milliseconds the run's tasks waited, by what held them (replicaLag, pause, rateCap...). */
  readonly waitedMsByReason: Readonly<Record<string, number>>;
}

/** A run as it starts: one per table and mode per message. */
export interface RunStart {
  readonly id: string;
  readonly table: string;
  readonly mode: RunMode;
  /** The dataset its history row goes to (and its project, where the warehouse has projects). */
  readonly dataset: string;
  readonly project?: string;
  /** The retention policy whose schedule published the message; absent for a message published by hand. */
  readonly policy?: string;
  readonly dryRun?: boolean;
  /** ISO instant. */
  readonly startedAt: string;
}

/** One finished run: the row of the run history (`_archiver_runs`). */
export interface RunRecord extends RunStart, RunCounts {
  /** Tasks the run queued. */
  readonly queued: number;
  /** ISO instant the last of its tasks ended (its start, for a run that queued none). */
  readonly endedAt: string;
  readonly result: RunResult;
}

export const NO_COUNTS: RunCounts = {
  copied: 0,
  cleaned: 0,
  refused: 0,
  deferred: 0,
  failed: 0,
  rows: 0,
  waitedMsByReason: {},
};

/** The result the counts come to (see RunResult). */
export function runResult(counts: Pick<RunCounts, "refused" | "deferred" | "failed">): RunResult {
  if (counts.failed > 0) return "failed";
  return counts.refused > 0 || counts.deferred > 0 ? "partial" : "succeeded";
}

/** `counts` plus `more`, the waits added up reason by reason. */
export function addCounts(counts: RunCounts, more: Partial<RunCounts>): RunCounts {
  const waited: Record<string, number> = { ...counts.waitedMsByReason };
  for (const [reason, ms] of Object.entries(more.waitedMsByReason ?? {})) {
    waited[reason] = (waited[reason] ?? 0) + ms;
  }
  return {
    copied: counts.copied + (more.copied ?? 0),
    cleaned: counts.cleaned + (more.cleaned ?? 0),
    refused: counts.refused + (more.refused ?? 0),
    deferred: counts.deferred + (more.deferred ?? 0),
    failed: counts.failed + (more.failed ?? 0),
    rows: counts.rows + (more.rows ?? 0),
    waitedMsByReason: waited,
  };
}

/** The finished record of a run: its start, what it queued, its counts, and the result they come to. */
export function finishedRun(start: RunStart, queued: number, counts: RunCounts, endedAt: string): RunRecord {
  return { ...start, queued, ...counts, endedAt, result: runResult(counts) };
}
