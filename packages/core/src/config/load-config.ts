import type { z } from "zod";
import { ConfigError } from "../errors";
import { type Env, envSchema } from "./env-schema";
import { replicaUrlProblems } from "./replica-urls";

/**
 * The environment, parsed and grouped by the part of the system it
 * configures: `Config` is this schema's output, so its types are the
 * variables' own. The queue and the warehouse are unions by `kind`, each
 * kind with its own fields.
 */
const configSchema = envSchema.transform(toConfig);

/** The parsed configuration (see configSchema). */
export type Config = z.output<typeof configSchema>;

type Source = Readonly<Record<string, string | undefined>>;

/** A parse of the environment: its value, or one problem (`NAME: what is wrong`) per bad variable. */
export type ConfigParse<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly problems: readonly string[] };

/**
 * Parses the environment once. Empty strings count as unset, so `FOO=` in a
 * `.env` file falls back to the default. Throws one ConfigError naming every
 * missing or bad variable.
 */
export function loadConfig(source: Source = process.env): Config {
  const parsed = parseConfig(source);
  if (!parsed.ok) throw invalidConfiguration(parsed.problems);
  return parsed.value;
}

/** loadConfig without the throw: the configuration, or every problem with it. */
export function parseConfig(source: Source = process.env): ConfigParse<Config> {
  const parsed = parseVariables(configSchema, source);
  const problems = [...(parsed.ok ? [] : parsed.problems), ...crossFieldProblems(withoutEmpty(source))];
  return parsed.ok && problems.length === 0 ? parsed : { ok: false, problems };
}

/**
 * Parses `source` with a schema of variables (empty strings unset), as
 * loadConfig does; for settings of their own, such as the local deployment's.
 */
export function parseVariables<S extends z.ZodType>(schema: S, source: Source): ConfigParse<z.output<S>> {
  const parsed = schema.safeParse(withoutEmpty(source));
  return parsed.success
    ? { ok: true, value: parsed.data }
    : {
        ok: false,
        problems: parsed.error.issues.map(
          (issue) => `${issue.path.join(".") || "environment"}: ${issue.message}`,
        ),
      };
}

/** The one ConfigError for every problem found, named after the first variable at fault. */
export function invalidConfiguration(problems: readonly string[]): ConfigError {
  return new ConfigError(`invalid configuration: ${problems.join("; ")}`, {
    field: problems[0]?.split(":")[0],
  });
}

function withoutEmpty(source: Source): Record<string, string> {
  return Object.fromEntries(
    Object.entries(source).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== "",
    ),
  );
}

/** What the Cloud Tasks driver cannot work without. */
const CLOUD_TASKS_REQUIRED = [
  "CLOUD_TASKS_PROJECT",
  "CLOUD_TASKS_LOCATION",
  "TASK_HANDLER_URL",
  "TASK_INVOKER_SERVICE_ACCOUNT",
] as const;

function crossFieldProblems(env: Readonly<Record<string, string | undefined>>): string[] {
  const problems: string[] = [];
  if (env.WAREHOUSE === "bigquery") {
    if (!env.BIGQUERY_PROJECT) problems.push("BIGQUERY_PROJECT: required when WAREHOUSE=bigquery");
    if (!env.BIGQUERY_LOCATION) problems.push("BIGQUERY_LOCATION: required when WAREHOUSE=bigquery");
  }
  if (env.QUEUE === "cloud-tasks") {
    for (const name of CLOUD_TASKS_REQUIRED) {
      if (!env[name]) problems.push(`${name}: required when QUEUE=cloud-tasks`);
    }
  }
  problems.push(...cleanupProblems(env));
  return problems;
}

/** A lag limit with no replica to measure would look like protection and be none. */
function cleanupProblems(env: Readonly<Record<string, string | undefined>>): string[] {
  const urls = splitList(env.CLEANUP_REPLICA_URLS);
  const problems = replicaUrlProblems(urls);
  const lagLimit = Number(env.CLEANUP_MAX_REPLICA_LAG_SECONDS ?? 0);
  if (lagLimit > 0 && urls.length === 0) {
    problems.push(
      "CLEANUP_MAX_REPLICA_LAG_SECONDS: set, but CLEANUP_REPLICA_URLS names no replica to measure",
    );
  }
  // Seconds_Behind_Master counts whole seconds: a limit of 0.5 there would read as "no lag at all".
  if (!Number.isInteger(lagLimit) && Number.isFinite(lagLimit) && !env.CLEANUP_REPLICA_HEARTBEAT_TABLE) {
    problems.push(
      "CLEANUP_MAX_REPLICA_LAG_SECONDS: a fraction of a second needs CLEANUP_REPLICA_HEARTBEAT_TABLE " +
        "(replica status reports whole seconds)",
    );
  }
  return problems;
}

/** A comma-separated list, items trimmed, empty items dropped. */
export function splitList(value: string | undefined): readonly string[] {
  return (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

/**
 * The variables grouped. A variable that another requires (BIGQUERY_* for
 * WAREHOUSE=bigquery, the Cloud Tasks ones for QUEUE=cloud-tasks) reads as ""
 * here only when crossFieldProblems has already refused the configuration.
 */
function toConfig(env: Env) {
  return {
    mysql: {
      url: env.MYSQL_URL,
      password: env.MYSQL_PASSWORD,
      /** MYSQL_QUERY_TIMEOUT_SECONDS, in ms: longest one statement may run. */
      queryTimeoutMs: env.MYSQL_QUERY_TIMEOUT_SECONDS * 1000,
      /** MYSQL_STREAM_IDLE_SECONDS, in ms: longest a streamed read may hear nothing. */
      streamIdleTimeoutMs: env.MYSQL_STREAM_IDLE_SECONDS * 1000,
      /** TLS to the server (MYSQL_TLS_CA, MYSQL_TLS_REJECT_UNAUTHORIZED); unused through Cloud SQL. */
      tls: { ca: env.MYSQL_TLS_CA, rejectUnauthorized: env.MYSQL_TLS_REJECT_UNAUTHORIZED },
      /** The Cloud SQL connector (CLOUD_SQL_*), when CLOUD_SQL_INSTANCE names an instance. */
      cloudSql:
        env.CLOUD_SQL_INSTANCE === undefined
          ? undefined
          : {
              instance: env.CLOUD_SQL_INSTANCE,
              iamAuth: env.CLOUD_SQL_IAM_AUTH,
              ipType: env.CLOUD_SQL_IP_TYPE,
            },
    },
    redis: {
      url: env.REDIS_URL,
      auth: env.REDIS_AUTH,
      /** Extra CA (PEM) to trust for `rediss://`; absent means the system CAs. */
      ...(env.REDIS_TLS_CA === undefined ? {} : { tlsCa: env.REDIS_TLS_CA }),
    },
    warehouse: env.WAREHOUSE === "bigquery" ? bigQueryWarehouse(env) : duckDbWarehouse(env),
    queue: env.QUEUE === "cloud-tasks" ? cloudTasksQueue(env) : localQueue(env),
    /**
     * Attempts the Cloud Tasks queue makes per task (TASK_MAX_ATTEMPTS, the queue's maxAttempts; -1 for
     * unlimited): the task handler ends a task that fails its last one as failed in its run. Undefined:
     * unknown, and a task retried until the queue drops it ends no run; the next run ends that run once
     * stale (runStaleAfterMs).
     */
    taskMaxAttempts: env.TASK_MAX_ATTEMPTS,
    /**
     * Hours an open run may hear nothing before the next run of its table and mode ends it as failed
     * (RUN_STALE_AFTER_HOURS); the runtime raises it to the queue's retry horizon (runStaleAfterMs).
     */
    runStaleAfterHours: env.RUN_STALE_AFTER_HOURS,
    timeZone: env.ARCHIVER_TIMEZONE,
    copyBatchRows: env.COPY_BATCH_ROWS,
    /** Rest per unit of a copy's read time (COPY_NICE_RATIO). */
    copyNiceRatio: env.COPY_NICE_RATIO,
    /** Rows copied per second for a table across every task (COPY_MAX_ROWS_PER_SECOND); 0 caps nothing. */
    copyMaxRowsPerSecond: env.COPY_MAX_ROWS_PER_SECOND,
    /** Copy tasks one local worker runs at once. */
    workerConcurrency: env.WORKER_CONCURRENCY,
    logLevel: env.LOG_LEVEL,
    /** Cleanup mode (deletes): chunking, pacing and throttles. docs/cleanup.md explains each. */
    cleanup: {
      /** Rows per delete chunk (CLEANUP_CHUNK_ROWS), each chunk its own transaction. */
      chunkRows: env.CLEANUP_CHUNK_ROWS,
      /**
       * Deletes join consecutive planned chunks to last about this long (CLEANUP_CHUNK_TARGET_MS), at most
       * MAX_DELETE_ROWS rows; 0 deletes one planned chunk at a time.
       */
      chunkTargetMs: env.CLEANUP_CHUNK_TARGET_MS,
      /**
       * Cleanup tasks one local worker runs at once (CLEANUP_CONCURRENCY, default 1); on
       * Google Cloud the queue's maxConcurrentDispatches bounds every task.
       */
      concurrency: env.CLEANUP_CONCURRENCY,
      /** Rows a detached partition's twin is hashed by, at most, a statement (CLEANUP_PARTITION_SLICE_ROWS). */
      partitionSliceRows: env.CLEANUP_PARTITION_SLICE_ROWS,
      /** Pause between chunks (CLEANUP_PAUSE_MS). */
      pauseMs: env.CLEANUP_PAUSE_MS,
      /** Rest per unit of delete time, before the next delete (CLEANUP_NICE_RATIO). */
      niceRatio: env.CLEANUP_NICE_RATIO,
      /** Wait while any replica lags more than this (CLEANUP_MAX_REPLICA_LAG_SECONDS); 0 turns it off. */
      maxReplicaLagSeconds: env.CLEANUP_MAX_REPLICA_LAG_SECONDS,
      /** Replicas to watch (CLEANUP_REPLICA_URLS, comma-separated mysql:// URLs). */
      replicaUrls: splitList(env.CLEANUP_REPLICA_URLS),
      /**
       * `database.table` of a pt-heartbeat table (CLEANUP_REPLICA_HEARTBEAT_TABLE): replicas report
       * the age of its newest `ts` as their lag instead of their status; undefined reads the status.
       */
      replicaHeartbeatTable: env.CLEANUP_REPLICA_HEARTBEAT_TABLE,
      /** Wait while the primary's Threads_running is above this (CLEANUP_MAX_THREADS_RUNNING); 0 turns it off. */
      maxThreadsRunning: env.CLEANUP_MAX_THREADS_RUNNING,
      /**
       * Wait while InnoDB's checkpoint age is above this percentage of the redo
       * log (CLEANUP_MAX_REDO_PERCENT); 0, the default, turns it off.
       */
      maxRedoPercent: env.CLEANUP_MAX_REDO_PERCENT,
      /**
       * Wait while InnoDB's history list length (undo not yet purged) is above this
       * (CLEANUP_MAX_HISTORY_LENGTH); 0, the default, turns it off.
       */
      maxHistoryLength: env.CLEANUP_MAX_HISTORY_LENGTH,
      /** Longest wait for lag or load before the task gives up and is retried (CLEANUP_MAX_WAIT_SECONDS). */
      maxWaitMs: env.CLEANUP_MAX_WAIT_SECONDS * 1000,
      /** Rows deleted per second for a table across every task (CLEANUP_MAX_ROWS_PER_SECOND); 0 caps nothing. */
      maxRowsPerSecond: env.CLEANUP_MAX_ROWS_PER_SECOND,
      /** No cleanup deletes a day younger than this (MIN_RETENTION_DAYS). */
      minRetentionDays: env.MIN_RETENTION_DAYS,
    },
  } as const;
}

/** WAREHOUSE=duckdb: the file and DuckDB's settings. */
function duckDbWarehouse(env: Env) {
  const { DUCKDB_PATH: path, WAREHOUSE_DATASET: dataset, DUCKDB_THREADS: threads } = env;
  const { DUCKDB_MEMORY_LIMIT: memoryLimit, DUCKDB_CHECKPOINT_THRESHOLD: checkpointThreshold } = env;
  return { kind: "duckdb", path, dataset, memoryLimit, threads, checkpointThreshold } as const;
}

/** WAREHOUSE=bigquery: the project and location of the jobs. */
function bigQueryWarehouse(env: Env) {
  return {
    kind: "bigquery",
    project: env.BIGQUERY_PROJECT ?? "",
    location: env.BIGQUERY_LOCATION ?? "",
    dataset: env.WAREHOUSE_DATASET,
  } as const;
}

/** QUEUE=local: the BullMQ queue in Redis. */
function localQueue(env: Env) {
  return {
    kind: "local",
    /** LOCAL_QUEUE_PREFIX: the Redis key prefix of the queue. */
    prefix: env.LOCAL_QUEUE_PREFIX,
    /** TASK_ATTEMPTS: attempts per task, with backoff between them. */
    attempts: env.TASK_ATTEMPTS,
  } as const;
}

/** QUEUE=cloud-tasks: where the queue is and where its tasks go. */
function cloudTasksQueue(env: Env) {
  return {
    kind: "cloud-tasks",
    project: env.CLOUD_TASKS_PROJECT ?? "",
    location: env.CLOUD_TASKS_LOCATION ?? "",
    /** TASK_HANDLER_URL: every task POSTs its payload there. */
    handlerUrl: env.TASK_HANDLER_URL ?? "",
    /** TASK_INVOKER_SERVICE_ACCOUNT: whose OIDC token each task carries. */
    invokerServiceAccount: env.TASK_INVOKER_SERVICE_ACCOUNT ?? "",
    dispatchDeadlineSeconds: env.TASK_DISPATCH_DEADLINE_SECONDS,
  } as const;
}
