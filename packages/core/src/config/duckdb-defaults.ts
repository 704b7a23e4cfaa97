/**
 * DuckDB's settings when nothing sets them: the environment's defaults
 * (env-schema) and a warehouse opened without settings (tests, benches) use
 * these same values.
 */
export const DUCKDB_DEFAULTS = {
  /** DUCKDB_MEMORY_LIMIT. */
  memoryLimit: "32MB",
  /** DUCKDB_THREADS. */
  threads: 1,
  /** DUCKDB_CHECKPOINT_THRESHOLD. */
  checkpointThreshold: "256MB",
} as const;
