import type { ThrottleSettings } from "../pacing/throttle";

/**
 * How cleanup cuts, paces and throttles its deletes; the environment's
 * CLEANUP_* variables fill it (docs/cleanup.md explains each).
 */
export interface CleanupSettings extends ThrottleSettings {
  /** Rows per planned chunk, each deleted in its own transaction. */
  readonly chunkRows: number;
  /** Deletes join consecutive planned chunks to last about this long; 0 deletes one planned chunk at a time. */
  readonly chunkTargetMs: number;
  /** Rows a detached partition's twin is hashed by, at most, a statement (see twinReading). */
  readonly partitionSliceRows: number;
  /** Rest per unit of delete time, before the next delete. */
  readonly niceRatio: number;
  /** Rows deleted per second for a table, across every task and worker at once; 0 caps nothing. */
  readonly maxRowsPerSecond: number;
  /** No day younger than this many days is deleted, whatever a message says. */
  readonly minRetentionDays: number;
}
