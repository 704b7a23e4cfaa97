import type * as pulumi from "@pulumi/pulumi";
import type { Env } from "@table-archiver/core/config";

/**
 * A variable the archiver's config module reads. Typing every map the program
 * gives a function with these names makes a renamed variable a type error.
 */
export type EnvName = keyof Env;

/** Plain environment variables for one function. */
export type FunctionEnv = Partial<Record<EnvName, pulumi.Input<string>>>;

/**
 * The variables that carry credentials: they reach functions only from Secret Manager. Replica URLs
 * may hold a password (`mysql://user:password@replica`), so they are one.
 */
export const secretEnvNames = [
  "MYSQL_PASSWORD",
  "REDIS_AUTH",
  "CLEANUP_REPLICA_URLS",
] as const satisfies readonly EnvName[];
export type SecretEnvName = (typeof secretEnvNames)[number];

/**
 * Variables the program sets from the resources it creates. The operator's
 * `functionEnv` config may not override them, or a stack could point a
 * function at a queue or dataset the IAM bindings do not cover.
 */
export const programEnvNames = [
  "MYSQL_URL",
  "MYSQL_TLS_CA",
  "CLOUD_SQL_INSTANCE",
  "CLOUD_SQL_IAM_AUTH",
  "REDIS_URL",
  "REDIS_TLS_CA",
  "WAREHOUSE",
  "WAREHOUSE_DATASET",
  "BIGQUERY_PROJECT",
  "BIGQUERY_LOCATION",
  "QUEUE",
  "CLOUD_TASKS_PROJECT",
  "CLOUD_TASKS_LOCATION",
  "TASK_HANDLER_URL",
  "TASK_INVOKER_SERVICE_ACCOUNT",
  "TASK_DISPATCH_DEADLINE_SECONDS",
  "TASK_MAX_ATTEMPTS",
  "ARCHIVER_TIMEZONE",
  "MIN_RETENTION_DAYS",
] as const satisfies readonly EnvName[];

/** What the functions' environment is built from. */
export interface EnvInputs {
  readonly project: string;
  readonly region: string;
  readonly mysqlUrl: string;
  readonly cloudSqlInstance: string | undefined;
  readonly cloudSqlIamAuth: boolean;
  /** The MySQL server's CA (PEM): TLS verified against it, outside the Cloud SQL connector. */
  readonly mysqlTlsCa: string | undefined;
  /** MIN_RETENTION_DAYS, only when the stack sets it (the code's default is 30). */
  readonly minRetentionDays: number | undefined;
  readonly redisUrl: pulumi.Input<string>;
  readonly redisCa: pulumi.Input<string>;
  readonly datasetId: pulumi.Input<string>;
  readonly bigqueryLocation: string;
  readonly dispatchDeadlineSeconds: number;
  /** The queue's attempts per task (queueMaxAttempts, -1 unlimited): the task handler ends a task's run on its last. */
  readonly maxAttempts: number;
  readonly timeZone: string;
  /** Operator tuning (LOG_LEVEL, COPY_BATCH_ROWS, CLEANUP_*…), already checked against the names. */
  readonly functionEnv: Readonly<FunctionEnv>;
}

function redisEnv(inputs: EnvInputs): FunctionEnv {
  return { REDIS_URL: inputs.redisUrl, REDIS_TLS_CA: inputs.redisCa };
}

/** The stack's BigQuery dataset: where copies go and the durable day record lives. */
function warehouseEnv(inputs: EnvInputs): FunctionEnv {
  return {
    WAREHOUSE: "bigquery",
    WAREHOUSE_DATASET: inputs.datasetId,
    BIGQUERY_PROJECT: inputs.project,
    BIGQUERY_LOCATION: inputs.bigqueryLocation,
  };
}

/** The whole runtime: source, ledger, warehouse and queue. */
function runtimeEnv(inputs: EnvInputs): FunctionEnv {
  return {
    ...inputs.functionEnv,
    MYSQL_URL: inputs.mysqlUrl,
    ...(inputs.cloudSqlInstance ? { CLOUD_SQL_INSTANCE: inputs.cloudSqlInstance } : {}),
    CLOUD_SQL_IAM_AUTH: String(inputs.cloudSqlIamAuth),
    ...(inputs.mysqlTlsCa ? { MYSQL_TLS_CA: inputs.mysqlTlsCa } : {}),
    ...(inputs.minRetentionDays === undefined ? {} : { MIN_RETENTION_DAYS: String(inputs.minRetentionDays) }),
    ...redisEnv(inputs),
    ...warehouseEnv(inputs),
    QUEUE: "cloud-tasks",
    CLOUD_TASKS_PROJECT: inputs.project,
    CLOUD_TASKS_LOCATION: inputs.region,
    TASK_DISPATCH_DEADLINE_SECONDS: String(inputs.dispatchDeadlineSeconds),
    TASK_MAX_ATTEMPTS: String(inputs.maxAttempts),
    ARCHIVER_TIMEZONE: inputs.timeZone,
  };
}

/** Where tasks go and whose OIDC token they carry (the Cloud Tasks driver needs both to start). */
export interface TaskTargetEnv {
  readonly handlerUrl: pulumi.Input<string>;
  readonly invokerEmail: pulumi.Input<string>;
}

/** Entry and task handler build the same runtime; only the entry creates tasks, but both start the driver. */
export function queueFunctionEnv(inputs: EnvInputs, task: TaskTargetEnv): FunctionEnv {
  return {
    ...runtimeEnv(inputs),
    TASK_HANDLER_URL: task.handlerUrl,
    TASK_INVOKER_SERVICE_ACCOUNT: task.invokerEmail,
  };
}

/**
 * With IAM database authentication Cloud SQL logs a function in as its own service account, so each
 * function's MYSQL_URL names its own database user: the account's id, as MySQL truncates a service
 * account's email at the `@` (`archiver-entry@P.iam.gserviceaccount.com` is user `archiver-entry`).
 * With a password every function logs in as mysqlUrl's user.
 */
export function withDatabaseUser(env: FunctionEnv, inputs: EnvInputs, user: string): FunctionEnv {
  if (!inputs.cloudSqlIamAuth) return env;
  const url = new URL(inputs.mysqlUrl);
  url.username = user;
  return { ...env, MYSQL_URL: url.toString() };
}

/**
 * Only cleanup tasks measure replica lag, so only the task handler gets the replica URLs (a secret)
 * and the lag limit: the config module refuses a limit without replicas to measure.
 */
export function withoutReplicaThrottle(env: FunctionEnv): FunctionEnv {
  const { CLEANUP_MAX_REPLICA_LAG_SECONDS: _taskHandlerOnly, ...rest } = env;
  return rest;
}

/**
 * The reader reads `mig_*` sets from Redis, and for `rebuildSet` the dataset's
 * durable day record from BigQuery.
 */
export function readerEnv(inputs: EnvInputs): FunctionEnv {
  return withoutReplicaThrottle({ ...inputs.functionEnv, ...redisEnv(inputs), ...warehouseEnv(inputs) });
}
