/** What held a chunk back: one of the throttles, or the configured pause between chunks. */
export type WaitReason = "replicaLag" | "threadsRunning" | "historyLength" | "redo" | "pause" | "rateCap";

/** The limits a throttle holds a cleanup's chunks to (the CLEANUP_* variables; 0 turns a limit off). */
export interface ThrottleSettings {
  /** Pause between chunks. */
  readonly pauseMs: number;
  /** Wait while any replica lags more than this. */
  readonly maxReplicaLagSeconds: number;
  /** Wait while the primary's Threads_running is above this. */
  readonly maxThreadsRunning: number;
  /** Wait while InnoDB's checkpoint age is above this percentage of a redo log. */
  readonly maxRedoPercent: number;
  /** Wait while InnoDB's history list length is above this. */
  readonly maxHistoryLength: number;
  /** Longest wait for lag or load before the task gives up and is retried. */
  readonly maxWaitMs: number;
}
