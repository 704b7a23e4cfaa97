import type { z } from "zod";
import { ConfigError } from "../errors";
import { type Env, envSchema } from "./env-schema";

/** The parsed configuration, grouped by the part of the system it configures. */
export interface Config {
  readonly mysql: {
    readonly url: string;
    readonly password: string | undefined;
    /** MYSQL_QUERY_TIMEOUT_SECONDS, in ms: longest one statement may run. */
    readonly queryTimeoutMs: number;
    /** MYSQL_STREAM_IDLE_SECONDS, in ms: longest a streamed read may hear nothing. */
    readonly streamIdleTimeoutMs: number;
  };
  readonly redis: {
    readonly url: string;
    readonly auth: string | undefined;
    /** Extra CA (PEM) to trust for `rediss://`; absent means the system CAs. */
    readonly tlsCa?: string | undefined;
  };
  readonly warehouse:
    | {
        readonly kind: "duckdb";
        readonly path: string;
        readonly dataset: string;
        readonly memoryLimit: string;
        readonly threads: number;
        readonly checkpointThreshold: string;
      }
    | {
        readonly kind: "bigquery";
        readonly project: string;
        readonly location: string;
        readonly dataset: string;
      };
  readonly queue: { readonly kind: "local" | "cloud-tasks"; readonly localPrefix: string };
  readonly timeZone: string;
  readonly copyBatchRows: number;
  readonly workerConcurrency: number;
  readonly taskAttempts: number;
  readonly logLevel: Env["LOG_LEVEL"];
  /** The local deployment (`pnpm dev`): API service, token generator and key-value loader. */
  readonly local: {
    readonly port: number;
    readonly host: string;
    /** `debug` enables /api/tokenGenerators. */
    readonly appEnv: string;
    /** DEBUG_UIDS split on commas; empty lets any well-formed uid have a token. */
    readonly debugUids: readonly string[];
    readonly tokenSecret: string | undefined;
    readonly tokenTtlSeconds: number;
    readonly loader: {
      readonly query: string | undefined;
      readonly table: string;
      readonly hash: string;
      readonly batchRows: number;
    };
  };
  /** Cleanup mode (deletes): chunking, pacing and throttles. docs/cleanup.md explains each. */
  readonly cleanup: {
    /** Rows per delete chunk (CLEANUP_CHUNK_ROWS), each chunk its own transaction. */
    readonly chunkRows: number;
    /**
     * Cleanup tasks one local worker runs at once (CLEANUP_CONCURRENCY, default 2); on
     * Google Cloud the queue's maxConcurrentDispatches bounds every task.
     */
    readonly concurrency: number;
    /** Pause between chunks (CLEANUP_PAUSE_MS). */
    readonly pauseMs: number;
    /** Wait while any replica lags more than this (CLEANUP_MAX_REPLICA_LAG_SECONDS); 0 turns it off. */
    readonly maxReplicaLagSeconds: number;
    /** Replicas to watch (CLEANUP_REPLICA_URLS, comma-separated mysql:// URLs). */
    readonly replicaUrls: readonly string[];
    /** Wait while the primary's Threads_running is above this (CLEANUP_MAX_THREADS_RUNNING); 0 turns it off. */
    readonly maxThreadsRunning: number;
    /**
     * Wait while InnoDB's checkpoint age is above this percentage of the redo
     * log (CLEANUP_MAX_REDO_PERCENT); 0, the default, turns it off.
     */
    readonly maxRedoPercent: number;
    /** Longest wait for lag or load before the task gives up and is retried (CLEANUP_MAX_WAIT_SECONDS). */
    readonly maxWaitMs: number;
  };
  /** The raw variables, for drivers added later. */
  readonly env: Env;
}

type Source = Readonly<Record<string, string | undefined>>;

/**
 * Parses the environment once. Empty strings count as unset, so `FOO=` in a
 * `.env` file falls back to the default. Throws one ConfigError naming every
 * missing or bad variable.
 */
export function loadConfig(source: Source = process.env): Config {
  const cleaned = Object.fromEntries(
    Object.entries(source).filter(([, value]) => value !== undefined && value !== ""),
  );
  const parsed = envSchema.safeParse(cleaned);
  const problems = parsed.success ? [] : describeIssues(parsed.error.issues);
  problems.push(...crossFieldProblems(cleaned));
  if (!parsed.success || problems.length > 0) {
    throw new ConfigError(`invalid configuration: ${problems.join("; ")}`, {
      field: problems[0]?.split(":")[0],
    });
  }
  return toConfig(parsed.data);
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => `${issue.path.join(".") || "environment"}: ${issue.message}`);
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
  const problems = urls
    .filter((url) => !isMysqlUrl(url))
    .map(
      (url) =>
        `CLEANUP_REPLICA_URLS: "${url.replace(/\/\/[^@/]*@/, "//***@")}" is not a mysql://host[:port] URL`,
    );
  if (Number(env.CLEANUP_MAX_REPLICA_LAG_SECONDS ?? 0) > 0 && urls.length === 0) {
    problems.push(
      "CLEANUP_MAX_REPLICA_LAG_SECONDS: set, but CLEANUP_REPLICA_URLS names no replica to measure",
    );
  }
  return problems;
}

function splitList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

function isMysqlUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "mysql:" && url.hostname.length > 0;
  } catch {
    return false;
  }
}

function toConfig(env: Env): Config {
  return {
    mysql: {
      url: env.MYSQL_URL,
      password: env.MYSQL_PASSWORD,
      queryTimeoutMs: env.MYSQL_QUERY_TIMEOUT_SECONDS * 1000,
      streamIdleTimeoutMs: env.MYSQL_STREAM_IDLE_SECONDS * 1000,
    },
    redis: { url: env.REDIS_URL, auth: env.REDIS_AUTH, tlsCa: env.REDIS_TLS_CA },
    warehouse:
      env.WAREHOUSE === "bigquery"
        ? {
            kind: "bigquery",
            project: env.BIGQUERY_PROJECT ?? "",
            location: env.BIGQUERY_LOCATION ?? "",
            dataset: env.WAREHOUSE_DATASET,
          }
        : {
            kind: "duckdb",
            path: env.DUCKDB_PATH,
            dataset: env.WAREHOUSE_DATASET,
            memoryLimit: env.DUCKDB_MEMORY_LIMIT,
            threads: env.DUCKDB_THREADS,
            checkpointThreshold: env.DUCKDB_CHECKPOINT_THRESHOLD,
          },
    queue: { kind: env.QUEUE, localPrefix: env.LOCAL_QUEUE_PREFIX },
    timeZone: env.ARCHIVER_TIMEZONE,
    copyBatchRows: env.COPY_BATCH_ROWS,
    workerConcurrency: env.WORKER_CONCURRENCY,
    taskAttempts: env.TASK_ATTEMPTS,
    logLevel: env.LOG_LEVEL,
    local: {
      port: env.PORT,
      host: env.HOST,
      appEnv: env.APP_ENV,
      debugUids: (env.DEBUG_UIDS ?? "")
        .split(",")
        .map((uid) => uid.trim())
        .filter((uid) => uid.length > 0),
      tokenSecret: env.LOCAL_TOKEN_SECRET,
      tokenTtlSeconds: env.LOCAL_TOKEN_TTL_SECONDS,
      loader: {
        query: env.LOADER_QUERY,
        table: env.LOADER_TABLE,
        hash: env.LOADER_HASH,
        batchRows: env.LOADER_BATCH_ROWS,
      },
    },
    cleanup: {
      chunkRows: env.CLEANUP_CHUNK_ROWS,
      concurrency: env.CLEANUP_CONCURRENCY,
      pauseMs: env.CLEANUP_PAUSE_MS,
      maxReplicaLagSeconds: env.CLEANUP_MAX_REPLICA_LAG_SECONDS,
      replicaUrls: splitList(env.CLEANUP_REPLICA_URLS),
      maxThreadsRunning: env.CLEANUP_MAX_THREADS_RUNNING,
      maxRedoPercent: env.CLEANUP_MAX_REDO_PERCENT,
      maxWaitMs: env.CLEANUP_MAX_WAIT_SECONDS * 1000,
    },
    env,
  };
}
