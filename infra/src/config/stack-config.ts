import type * as pulumi from "@pulumi/pulumi";
import type { RetentionPolicy } from "@table-archiver/core";
import { envSchema } from "@table-archiver/core/config";
import { z } from "zod";
import type { EnvName } from "./function-env";
import { InfraConfigError } from "./infra-config-error";
import {
  accepted,
  alertEmails,
  DATASET_REF,
  duration,
  extraDatasets,
  functionEnv,
  integer,
  json,
  MYSQL_URL,
  number,
  PEM_CERTIFICATE,
  publishers,
  readerInvokers,
  required,
  retentionPolicies,
  withoutPassword,
} from "./stack-key-values";

/** What the program needs from `pulumi.Config` (so tests can pass a plain map). */
export interface ConfigSource {
  get(key: string): string | undefined;
  getSecret(key: string): pulumi.Output<string> | undefined;
}

/** The Cloud Tasks queue settings: how an operator controls the load on the database. */
export interface QueueSettings {
  readonly maxDispatchesPerSecond: number;
  readonly maxConcurrentDispatches: number;
  readonly maxAttempts: number;
  readonly minBackoff: string;
  readonly maxBackoff: string;
  readonly maxDoublings: number;
  /** How long Cloud Tasks waits for the task handler; the handler's timeout is at least this. */
  readonly dispatchDeadlineSeconds: number;
}

/** A stack's configuration, checked and with defaults applied. Keys are documented in docs/deploy.md. */
export interface StackConfig {
  readonly project: string;
  readonly region: string;
  readonly mysql: {
    readonly url: string;
    readonly password: pulumi.Output<string> | undefined;
    readonly cloudSqlInstance: string | undefined;
    readonly cloudSqlIamAuth: boolean;
    /** CA of the server's certificate (PEM), for TLS outside the connector (MYSQL_TLS_CA). */
    readonly tlsCa: string | undefined;
  };
  /** The VPC that reaches MySQL; Memorystore is peered to it and the functions reach it by `egress`. */
  readonly network: {
    readonly network: string;
    readonly subnetwork: string;
    readonly egress: "direct" | "connector";
    readonly connectorRange: string;
  };
  readonly redis: {
    readonly tier: "BASIC" | "STANDARD_HA";
    readonly memorySizeGb: number;
    readonly deletionProtection: boolean;
  };
  readonly warehouse: {
    readonly datasetId: string;
    readonly location: string;
    /**
     * Further datasets destinations may name (`dataset.table`, `project.dataset.table`): each is
     * granted like the stack's own; those of the stack's project are created. No other is granted.
     */
    readonly extraDatasets: readonly { readonly project: string; readonly datasetId: string }[];
  };
  readonly queue: QueueSettings;
  /** Pub/Sub deliveries of one message before it moves to the dead-letter topic. */
  readonly maxDeliveryAttempts: number;
  readonly timeZone: string;
  /** IAM principals allowed to call `loadRedisData`, such as `group:ops@example.com`. */
  readonly readerInvokers: readonly string[];
  /** IAM principals allowed to publish to the topic: a cleanup message deletes rows. */
  readonly publishers: readonly string[];
  /** MIN_RETENTION_DAYS for the functions, when set (the code's own default otherwise). */
  readonly minRetentionDays: number | undefined;
  /** Extra variables for every function (LOG_LEVEL, COPY_BATCH_ROWS, CLEANUP_*…). */
  readonly functionEnv: Readonly<Partial<Record<EnvName, string>>>;
  /** CLEANUP_REPLICA_URLS, a secret: replica URLs may carry passwords. */
  readonly cleanup: { readonly replicaUrls: pulumi.Output<string> | undefined };
  /** One policy per table (`retention`, docs/retention.md): what Cloud Scheduler publishes, and when. */
  readonly retention: readonly RetentionPolicy[];
  /** Who the alerts reach (`alertEmails`): one e-mail notification channel each. */
  readonly alertEmails: readonly string[];
}

/**
 * Every key the program reads, by the name an operator sets it with (docs/deploy.md). `gcp:` keys
 * come from the gcp namespace; mysqlPassword is a secret, checked apart (see readStackConfig).
 */
const stackKeys = z.object({
  "gcp:project": required("gcp:project"),
  "gcp:region": required("gcp:region"),
  mysqlUrl: required("mysqlUrl")
    .regex(MYSQL_URL, "expected mysql://user@host:3306/db")
    .refine(
      withoutPassword,
      "holds a password, which would be plain configuration: leave it out of the URL and set it with pulumi config set --secret mysqlPassword",
    ),
  cloudSqlInstance: z
    .string()
    .refine(accepted(envSchema.shape.CLOUD_SQL_INSTANCE), "expected project:region:instance")
    .optional(),
  cloudSqlIamAuth: z
    .enum(["true", "false"], { error: "expected true or false" })
    .transform((v) => v === "true")
    .default(false),
  mysqlTlsCa: z
    .string()
    .regex(PEM_CERTIFICATE, "expected the CA certificate as PEM text (-----BEGIN CERTIFICATE----- ...)")
    .optional(),
  network: z.string().default("default"),
  subnetwork: z.string().default("default"),
  vpcEgress: z.enum(["direct", "connector"], { error: "one of direct, connector" }).default("direct"),
  vpcConnectorRange: z
    .string()
    .regex(/^(\d{1,3}\.){3}\d{1,3}\/28$/, "an unused /28 such as 10.8.0.0/28")
    .default("10.8.0.0/28"),
  redisTier: z.enum(["BASIC", "STANDARD_HA"], { error: "one of BASIC, STANDARD_HA" }).default("BASIC"),
  redisMemorySizeGb: integer(1, 1, 300),
  redisDeletionProtection: z
    .enum(["true", "false"], { error: "expected true or false" })
    .transform((v) => v === "true")
    .default(false),
  datasetId: z
    .string()
    .refine(accepted(envSchema.shape.WAREHOUSE_DATASET), "letters, digits and _ only")
    .default("archive"),
  /** Defaults to the region (see readStackConfig). */
  datasetLocation: z.string().optional(),
  extraDatasets: json(extraDatasets).default([]),
  queueMaxDispatchesPerSecond: number(1, 0.001, 500),
  queueMaxConcurrentDispatches: integer(2, 1, 5000),
  queueMaxAttempts: integer(5, -1, 1000),
  queueMinBackoff: duration("10s"),
  queueMaxBackoff: duration("600s"),
  queueMaxDoublings: integer(4, 0, 16),
  dispatchDeadlineSeconds: integer(600, 15, 1800),
  maxDeliveryAttempts: integer(10, 5, 100),
  timeZone: z
    .string()
    .refine(accepted(envSchema.shape.ARCHIVER_TIMEZONE), "not an IANA time zone")
    .default("UTC"),
  readerInvokers: json(readerInvokers).default([]),
  publishers: json(publishers).default([]),
  minRetentionDays: z.coerce
    .number({ error: "expected a whole number of days, 0 or more" })
    .int({ error: "expected a whole number of days, 0 or more" })
    .min(0, { error: "expected a whole number of days, 0 or more" })
    .max(100_000, { error: "at most 100000 days" })
    .optional(),
  functionEnv: json(functionEnv).default({}),
  alertEmails: json(alertEmails).default([]),
});

/**
 * Reads the stack's configuration (project namespace for the archiver's keys,
 * `gcp` for project and region). Every problem is collected, so one
 * InfraConfigError names every key to fix.
 */
export function readStackConfig(app: ConfigSource, gcp: ConfigSource): StackConfig {
  const raw: Record<string, string | undefined> = {};
  for (const key of Object.keys(stackKeys.shape)) {
    const value = key.startsWith("gcp:") ? gcp.get(key.slice("gcp:".length)) : app.get(key);
    // An empty value is an unset one, as `pulumi config set key ""` leaves it.
    raw[key] = value === "" ? undefined : value;
  }
  const password = app.getSecret("mysqlPassword");
  const replicaUrls = app.getSecret("cleanupReplicaUrls");
  const parsed = stackKeys.safeParse(raw);
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
  // Checked apart: core's parsePolicies names the table and field itself.
  const retention = retentionPolicies(emptyAsUnset(app.get("retention")));
  if (retention.problem) problems.push(retention.problem);
  if (Number(parsed.data?.functionEnv.CLEANUP_MAX_REPLICA_LAG_SECONDS ?? 0) > 0 && !replicaUrls) {
    problems.push(
      "functionEnv.CLEANUP_MAX_REPLICA_LAG_SECONDS: needs replicas to measure (pulumi config set --secret cleanupReplicaUrls)",
    );
  }
  const iamAuth = parsed.success ? parsed.data.cloudSqlIamAuth : raw.cloudSqlIamAuth === "true";
  if (!password && !iamAuth) {
    problems.push(
      "mysqlPassword: required unless cloudSqlIamAuth is true (pulumi config set --secret mysqlPassword)",
    );
  }
  if (!raw.cloudSqlInstance && !raw.mysqlTlsCa) {
    problems.push(
      "mysqlTlsCa or cloudSqlInstance: one is required, or MySQL is reached without TLS (set mysqlTlsCa to the server's CA as PEM, or cloudSqlInstance to connect through the Cloud SQL connector)",
    );
  }
  if (!parsed.success || problems.length > 0) {
    const unique = [...new Set(problems)];
    throw new InfraConfigError(`the stack's configuration needs fixing:\n  - ${unique.join("\n  - ")}`);
  }
  const keys = parsed.data;
  return {
    project: keys["gcp:project"],
    region: keys["gcp:region"],
    mysql: {
      url: keys.mysqlUrl,
      password,
      cloudSqlInstance: keys.cloudSqlInstance,
      cloudSqlIamAuth: keys.cloudSqlIamAuth,
      tlsCa: keys.mysqlTlsCa,
    },
    network: {
      network: keys.network,
      subnetwork: keys.subnetwork,
      egress: keys.vpcEgress,
      connectorRange: keys.vpcConnectorRange,
    },
    redis: {
      tier: keys.redisTier,
      memorySizeGb: keys.redisMemorySizeGb,
      deletionProtection: keys.redisDeletionProtection,
    },
    warehouse: {
      datasetId: keys.datasetId,
      location: keys.datasetLocation ?? keys["gcp:region"],
      extraDatasets: datasetRefs(keys.extraDatasets, keys["gcp:project"], keys.datasetId),
    },
    queue: {
      maxDispatchesPerSecond: keys.queueMaxDispatchesPerSecond,
      maxConcurrentDispatches: keys.queueMaxConcurrentDispatches,
      maxAttempts: keys.queueMaxAttempts,
      minBackoff: keys.queueMinBackoff,
      maxBackoff: keys.queueMaxBackoff,
      maxDoublings: keys.queueMaxDoublings,
      dispatchDeadlineSeconds: keys.dispatchDeadlineSeconds,
    },
    maxDeliveryAttempts: keys.maxDeliveryAttempts,
    timeZone: keys.timeZone,
    readerInvokers: keys.readerInvokers,
    publishers: keys.publishers,
    minRetentionDays: keys.minRetentionDays,
    functionEnv: keys.functionEnv,
    cleanup: { replicaUrls },
    retention: retention.policies,
    alertEmails: keys.alertEmails,
  };
}

const emptyAsUnset = (value: string | undefined) => (value === "" ? undefined : value);

/** `dataset` or `project.dataset` as a reference, each once; the stack's own dataset is not an extra one. */
function datasetRefs(names: readonly string[], project: string, own: string) {
  const refs = new Map<string, { project: string; datasetId: string }>();
  for (const name of names) {
    const [, inProject, datasetId = ""] = DATASET_REF.exec(name) ?? [];
    const ref = { project: inProject ?? project, datasetId };
    if (ref.project !== project || datasetId !== own) refs.set(`${ref.project}.${datasetId}`, ref);
  }
  return [...refs.values()];
}
