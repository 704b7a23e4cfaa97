import { z } from "zod";
import { DUCKDB_DEFAULTS } from "./duckdb-defaults";

/** An integer variable within [min, max], `fallback` when unset. */
export const intFrom = (min: number, max: number, fallback: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

const timeZone = z.string().refine(
  (zone) => {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  },
  { message: "not an IANA time zone (for example UTC or Europe/Madrid)" },
);

/** A size as DuckDB settings take it: 128MB, 1.5GiB, ... */
const duckDbSize = z
  .string()
  .regex(/^\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i, "a size such as 128MB or 1GiB");

/**
 * Time limits on the source, in seconds (MYSQL_QUERY_TIMEOUT_SECONDS,
 * MYSQL_STREAM_IDLE_SECONDS). Generous: they are there so that a dead
 * server or a network path that silently drops packets ends a task (which is
 * retried) instead of holding it forever, not to cut slow work short. A
 * statement may take half an hour: a day's key bounds, fingerprint and
 * chunk plan are each one statement over every row of the day. A streamed
 * read may hear nothing for ten minutes (the server's own net_write_timeout
 * in the other direction, see SESSION_SETUP_SQL): a day of an unindexed
 * table is found by a full scan, which can be quiet until it reaches the day.
 */
export const MYSQL_TIMEOUT_DEFAULTS = { querySeconds: 1_800, streamIdleSeconds: 600 } as const;

/**
 * Every environment variable the archiver's functions, CLI and worker read,
 * by its public name. These names are the interface: infra gives exactly
 * these to the functions. Add, don't rename. The local deployment's own
 * variables (PORT, APP_ENV, the tokens, the loader) are parsed in
 * packages/local (local-env-schema.ts), which only `pnpm dev` and the CLI use.
 */
export const envSchema = z.object({
  MYSQL_URL: z.url({ protocol: /^mysql$/ }).default("mysql://root@127.0.0.1:3306/archiver_demo"),
  MYSQL_PASSWORD: z.string().optional(),
  /** Longest one MySQL statement may run before its connection is closed and the task retried. */
  MYSQL_QUERY_TIMEOUT_SECONDS: intFrom(1, 86_400, MYSQL_TIMEOUT_DEFAULTS.querySeconds),
  /** Longest a streamed day may hear nothing from MySQL before the read fails and the task is retried. */
  MYSQL_STREAM_IDLE_SECONDS: intFrom(1, 86_400, MYSQL_TIMEOUT_DEFAULTS.streamIdleSeconds),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default("redis://127.0.0.1:6379"),
  REDIS_AUTH: z.string().optional(),
  /** PEM of the CA that signs the server certificate for `rediss://` (Memorystore's server CA). */
  REDIS_TLS_CA: z.string().optional(),
  WAREHOUSE: z.enum(["duckdb", "bigquery"]).default("duckdb"),
  DUCKDB_PATH: z.string().min(1).default(".data/warehouse.duckdb"),
  /** DuckDB's memory_limit: its buffer pool spills past this (the process's RSS is more). */
  DUCKDB_MEMORY_LIMIT: duckDbSize.default(DUCKDB_DEFAULTS.memoryLimit),
  /**
   * DuckDB's worker threads. One by default: a day's statements are small, and
   * with more threads each commit spends CPU handing work between them.
   */
  DUCKDB_THREADS: intFrom(1, 256, DUCKDB_DEFAULTS.threads),
  /** WAL size past which a commit checkpoints the DuckDB file (DuckDB's checkpoint_threshold). */
  DUCKDB_CHECKPOINT_THRESHOLD: duckDbSize.default(DUCKDB_DEFAULTS.checkpointThreshold),
  WAREHOUSE_DATASET: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,1023}$/, "letters, digits and _ only")
    .default("archive"),
  BIGQUERY_PROJECT: z.string().optional(),
  BIGQUERY_LOCATION: z.string().optional(),
  QUEUE: z.enum(["local", "cloud-tasks"]).default("local"),
  LOCAL_QUEUE_PREFIX: z.string().min(1).default("archiver"),
  ARCHIVER_TIMEZONE: timeZone.default("UTC"),
  COPY_BATCH_ROWS: intFrom(100, 1_000_000, 2_048),
  /**
   * A copy rests this many times as long as the source took to send each batch (gh-ost's nice
   * ratio): 1 leaves the server alone half the time a copy reads. Per copy, so it adds up over
   * the copies that run at once.
   */
  COPY_NICE_RATIO: z.coerce.number().min(0).max(100).default(0),
  WORKER_CONCURRENCY: intFrom(1, 64, 2),
  TASK_ATTEMPTS: intFrom(1, 100, 5),
  /**
   * Hours an open run may hear nothing before the next run of its table and mode ends it as failed
   * (at least the retry horizon TASK_MAX_ATTEMPTS or TASK_ATTEMPTS put the queue's at).
   */
  RUN_STALE_AFTER_HOURS: intFrom(1, 336, 12),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),

  // Cloud Tasks driver (QUEUE=cloud-tasks).
  CLOUD_TASKS_PROJECT: z.string().optional(),
  CLOUD_TASKS_LOCATION: z.string().optional(),
  TASK_HANDLER_URL: z.url({ protocol: /^https?$/ }).optional(),
  TASK_INVOKER_SERVICE_ACCOUNT: z.email().optional(),
  TASK_DISPATCH_DEADLINE_SECONDS: intFrom(15, 1800, 600),
  /** The Cloud Tasks queue's attempts per task (its maxAttempts; -1 for unlimited); unset when unknown. */
  TASK_MAX_ATTEMPTS: z.coerce.number().int().min(-1).max(1000).optional(),

  // Production source connection.
  MYSQL_TLS_CA: z.string().optional(),
  MYSQL_TLS_REJECT_UNAUTHORIZED: z.stringbool().default(true),
  CLOUD_SQL_INSTANCE: z
    .string()
    .regex(/^[a-z0-9-:.]+:[a-z0-9-]+:[a-z0-9-]+$/, "expected project:region:instance")
    .optional(),
  CLOUD_SQL_IAM_AUTH: z.stringbool().default(false),
  CLOUD_SQL_IP_TYPE: z.enum(["PUBLIC", "PRIVATE", "PSC"]).default("PRIVATE"),

  // Cleanup (deletes).
  CLEANUP_CHUNK_ROWS: intFrom(1, 100_000, 1_000),
  /** Join planned chunks into deletes of about this many milliseconds (0: one planned chunk per delete). */
  CLEANUP_CHUNK_TARGET_MS: intFrom(0, 60_000, 30),
  /** Rows a detached partition is verified by a statement, along its primary key (a few milliseconds each). */
  CLEANUP_PARTITION_SLICE_ROWS: intFrom(1, 100_000, 1_000),
  /** Cleanup tasks one local worker runs at once (copies use WORKER_CONCURRENCY). */
  CLEANUP_CONCURRENCY: intFrom(1, 64, 1),
  CLEANUP_PAUSE_MS: intFrom(0, 60_000, 0),
  /**
   * After each delete, rest this many times as long as it took before the next one (gh-ost's nice
   * ratio), across the days a process cleans one after another: 1 leaves the server alone half the
   * time a cleanup runs.
   */
  CLEANUP_NICE_RATIO: z.coerce.number().min(0).max(100).default(0),
  /** Whole seconds with the replicas' status; fractions (0.5) need CLEANUP_REPLICA_HEARTBEAT_TABLE. */
  CLEANUP_MAX_REPLICA_LAG_SECONDS: z.coerce.number().min(0).max(86_400).default(0),
  CLEANUP_REPLICA_URLS: z.string().optional(),
  /**
   * `database.table` of a pt-heartbeat table (`pt-heartbeat --update --utc` on the primary): each
   * replica's lag is then the age of its newest `ts`, in fractional seconds, instead of its status.
   */
  CLEANUP_REPLICA_HEARTBEAT_TABLE: z
    .string()
    .regex(/^[A-Za-z0-9_$]+\.[A-Za-z0-9_$]+$/, "database.table, such as percona.heartbeat")
    .optional(),
  CLEANUP_MAX_THREADS_RUNNING: intFrom(0, 100_000, 0),
  /** Wait while InnoDB's history list (undo not yet purged) is longer than this; 0 turns it off. */
  CLEANUP_MAX_HISTORY_LENGTH: intFrom(0, 1_000_000_000, 0),
  /** Wait while InnoDB's checkpoint age fills more than this share of the redo log; 0 turns it off. */
  CLEANUP_MAX_REDO_PERCENT: intFrom(0, 95, 0),
  /** Longest a cleanup task waits for lag or load to fall before it gives up and is retried later. */
  CLEANUP_MAX_WAIT_SECONDS: intFrom(1, 3_600, 120),
  /** Rows deleted per second for a table, across every task and worker; 0, the default, caps nothing. */
  CLEANUP_MAX_ROWS_PER_SECOND: intFrom(0, 100_000_000, 0),
  /** Rows copied per second for a table, across every task and worker; 0, the default, caps nothing. */
  COPY_MAX_ROWS_PER_SECOND: intFrom(0, 100_000_000, 0),
  /** No cleanup deletes a day younger than this many days, whatever its message says. */
  MIN_RETENTION_DAYS: intFrom(0, 100_000, 30),
});

export type Env = z.infer<typeof envSchema>;

/** The names of every variable the config module reads. */
export const configEnvNames = Object.keys(envSchema.shape) as (keyof Env)[];
