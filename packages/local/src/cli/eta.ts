/** What the ETA is computed from: the work finished so far and the table's rate cap. */
export interface EtaInput {
  /** Tasks finished (done or failed) and left. */
  readonly finished: number;
  readonly remaining: number;
  /** Rows copied or deleted so far, over `elapsedSeconds`. */
  readonly rows: number;
  readonly elapsedSeconds: number;
  /** Rows per second the table may go at (max_rows_per_second, else COPY_/CLEANUP_MAX_ROWS_PER_SECOND). */
  readonly cap: number | undefined;
}

/**
 * Seconds left: the rows left (the tasks left times the rows a finished task
 * averaged) over min(measured rate, cap). Without a cap, or before any row,
 * that is the pace of the tasks finished so far. With one it matters: the
 * first tasks can run faster than the cap allows on average (a token bucket
 * starts full, a small day ends before the pace bites), and an ETA at their
 * pace would promise too early an end. Undefined before the first task ends.
 */
export function etaSeconds(input: EtaInput): number | undefined {
  const { finished, remaining, rows, elapsedSeconds, cap } = input;
  if (finished === 0 || remaining === 0) return undefined;
  const byTasks = (elapsedSeconds / finished) * remaining;
  if (!cap || rows === 0 || elapsedSeconds <= 0) return byTasks;
  const rowsLeft = (rows / finished) * remaining;
  return rowsLeft / Math.min(rows / elapsedSeconds, cap);
}

/** `eta 2 min 10 s`, or "" when there is no estimate. */
export function etaText(seconds: number | undefined): string {
  if (seconds === undefined) return "";
  const s = Math.round(seconds);
  return `eta ${s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`}`;
}
