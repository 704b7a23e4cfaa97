import type { z } from "zod";
import { ConfigError } from "../errors";
import { type Env, envSchema } from "./env-schema";

/** The parsed configuration, grouped by the part of the system it configures. */
export interface Config {
  readonly mysql: { readonly url: string; readonly password: string | undefined };
  readonly redis: { readonly url: string; readonly auth: string | undefined };
  readonly warehouse:
    | { readonly kind: "duckdb"; readonly path: string; readonly dataset: string }
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

function crossFieldProblems(env: Readonly<Record<string, string | undefined>>): string[] {
  const problems: string[] = [];
  if (env.WAREHOUSE === "bigquery") {
    if (!env.BIGQUERY_PROJECT) problems.push("BIGQUERY_PROJECT: required when WAREHOUSE=bigquery");
    if (!env.BIGQUERY_LOCATION) problems.push("BIGQUERY_LOCATION: required when WAREHOUSE=bigquery");
  }
  return problems;
}

function toConfig(env: Env): Config {
  return {
    mysql: { url: env.MYSQL_URL, password: env.MYSQL_PASSWORD },
    redis: { url: env.REDIS_URL, auth: env.REDIS_AUTH },
    warehouse:
      env.WAREHOUSE === "bigquery"
        ? {
            kind: "bigquery",
            project: env.BIGQUERY_PROJECT ?? "",
            location: env.BIGQUERY_LOCATION ?? "",
            dataset: env.WAREHOUSE_DATASET,
          }
        : { kind: "duckdb", path: env.DUCKDB_PATH, dataset: env.WAREHOUSE_DATASET },
    queue: { kind: env.QUEUE, localPrefix: env.LOCAL_QUEUE_PREFIX },
    timeZone: env.ARCHIVER_TIMEZONE,
    copyBatchRows: env.COPY_BATCH_ROWS,
    workerConcurrency: env.WORKER_CONCURRENCY,
    taskAttempts: env.TASK_ATTEMPTS,
    logLevel: env.LOG_LEVEL,
    env,
  };
}
