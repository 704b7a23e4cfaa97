import type * as pulumi from "@pulumi/pulumi";
import { configEnvNames, envSchema } from "@table-archiver/core/config";
import { type EnvName, programEnvNames, secretEnvNames } from "./function-env";
import { InfraConfigError } from "./infra-config-error";

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
  };
  /** The VPC that reaches MySQL; Memorystore and the functions' Direct VPC egress join it. */
  readonly network: { readonly network: string; readonly subnetwork: string };
  readonly redis: { readonly tier: "BASIC" | "STANDARD_HA"; readonly memorySizeGb: number };
  readonly warehouse: { readonly datasetId: string; readonly location: string };
  readonly queue: QueueSettings;
  /** Pub/Sub deliveries of one message before it moves to the dead-letter topic. */
  readonly maxDeliveryAttempts: number;
  readonly timeZone: string;
  /** IAM principals allowed to call `loadRedisData`, such as `group:ops@example.com`. */
  readonly readerInvokers: readonly string[];
  /** Extra variables for every function (LOG_LEVEL, COPY_BATCH_ROWS, CLEANUP_*…). */
  readonly functionEnv: Readonly<Partial<Record<EnvName, string>>>;
}

const DURATION = /^\d+(\.\d+)?s$/;
const PRINCIPAL = /^(user|group|serviceAccount|domain|principal|principalSet):\S+$/;

/**
 * Reads the stack's configuration (project namespace for the archiver's keys,
 * `gcp` for project and region). Every problem is collected, so one run names
 * every key to fix.
 */
export function readStackConfig(app: ConfigSource, gcp: ConfigSource): StackConfig {
  const problems: string[] = [];
  const reader = new KeyReader(app, problems);
  const project = required(gcp, "gcp:project", problems);
  const region = required(gcp, "gcp:region", problems);
  const cloudSqlIamAuth = reader.boolean("cloudSqlIamAuth", false);
  const password = app.getSecret("mysqlPassword");
  if (!password && !cloudSqlIamAuth) {
    problems.push(
      "mysqlPassword: required unless cloudSqlIamAuth is true (pulumi config set --secret mysqlPassword)",
    );
  }
  const config: StackConfig = {
    project,
    region,
    mysql: {
      url: reader.string(
        "mysqlUrl",
        undefined,
        (v) => /^mysql:\/\/[^/\s]+/.test(v) || "expected mysql://user@host:3306/db",
      ),
      password,
      cloudSqlInstance: reader.optional(
        "cloudSqlInstance",
        (v) => envSchema.shape.CLOUD_SQL_INSTANCE.safeParse(v).success || "expected project:region:instance",
      ),
      cloudSqlIamAuth,
    },
    network: {
      network: reader.string("network", "default"),
      subnetwork: reader.string("subnetwork", "default"),
    },
    redis: {
      tier: reader.choice("redisTier", ["BASIC", "STANDARD_HA"] as const, "BASIC"),
      memorySizeGb: reader.integer("redisMemorySizeGb", 1, 1, 300),
    },
    warehouse: {
      datasetId: reader.string(
        "datasetId",
        "archive",
        (v) => envSchema.shape.WAREHOUSE_DATASET.safeParse(v).success || "letters, digits and _ only",
      ),
      location: reader.string("datasetLocation", region || "US"),
    },
    queue: {
      maxDispatchesPerSecond: reader.number("queueMaxDispatchesPerSecond", 1, 0.001, 500),
      maxConcurrentDispatches: reader.integer("queueMaxConcurrentDispatches", 2, 1, 5000),
      maxAttempts: reader.integer("queueMaxAttempts", 5, -1, 1000),
      minBackoff: reader.string(
        "queueMinBackoff",
        "10s",
        (v) => DURATION.test(v) || "a duration such as 10s",
      ),
      maxBackoff: reader.string(
        "queueMaxBackoff",
        "600s",
        (v) => DURATION.test(v) || "a duration such as 600s",
      ),
      maxDoublings: reader.integer("queueMaxDoublings", 4, 0, 16),
      dispatchDeadlineSeconds: reader.integer("dispatchDeadlineSeconds", 600, 15, 1800),
    },
    maxDeliveryAttempts: reader.integer("maxDeliveryAttempts", 10, 5, 100),
    timeZone: reader.string(
      "timeZone",
      "UTC",
      (v) => envSchema.shape.ARCHIVER_TIMEZONE.safeParse(v).success || "not an IANA time zone",
    ),
    readerInvokers: readInvokers(reader),
    functionEnv: readFunctionEnv(reader),
  };
  if (problems.length > 0) {
    throw new InfraConfigError(`the stack's configuration needs fixing:\n  - ${problems.join("\n  - ")}`);
  }
  return config;
}

function readInvokers(reader: KeyReader): string[] {
  const value = reader.json("readerInvokers", []);
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    reader.problem("readerInvokers", "expected a list of IAM principals such as group:ops@example.com");
    return [];
  }
  for (const principal of value) {
    if (principal === "allUsers" || principal === "allAuthenticatedUsers") {
      reader.problem("readerInvokers", `${principal} would make loadRedisData public; name people or groups`);
    } else if (!PRINCIPAL.test(principal)) {
      reader.problem("readerInvokers", `${principal} is not an IAM principal such as user:ana@example.com`);
    }
  }
  return value;
}

function readFunctionEnv(reader: KeyReader): Partial<Record<EnvName, string>> {
  const value = reader.json("functionEnv", {});
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    reader.problem("functionEnv", "expected an object of environment variables");
    return {};
  }
  const known = new Set<string>(configEnvNames);
  const owned = new Set<string>([...programEnvNames, ...secretEnvNames]);
  const env: Partial<Record<EnvName, string>> = {};
  for (const [name, raw] of Object.entries(value)) {
    if (!known.has(name)) reader.problem(`functionEnv.${name}`, "not a variable the archiver reads");
    else if (owned.has(name))
      reader.problem(`functionEnv.${name}`, "set by the program itself (or a secret)");
    else if (typeof raw !== "string" && typeof raw !== "number" && typeof raw !== "boolean") {
      reader.problem(`functionEnv.${name}`, "expected a string, number or boolean");
    } else env[name as EnvName] = String(raw);
  }
  return env;
}

function required(source: ConfigSource, key: string, problems: string[]): string {
  const value = source.get(key.split(":")[1] ?? key);
  if (value) return value;
  problems.push(`${key}: required (pulumi config set ${key} <value>)`);
  return "";
}

/** Reads one key at a time, recording a problem (and returning the default) when a value is bad. */
class KeyReader {
  constructor(
    private readonly source: ConfigSource,
    private readonly problems: string[],
  ) {}

  problem(key: string, message: string): void {
    this.problems.push(`${key}: ${message}`);
  }

  optional(key: string, check?: (v: string) => true | string): string | undefined {
    const value = this.source.get(key);
    if (value === undefined || value === "") return undefined;
    const verdict = check?.(value) ?? true;
    if (verdict !== true) this.problem(key, verdict);
    return value;
  }

  string(key: string, fallback: string | undefined, check?: (v: string) => true | string): string {
    const value = this.optional(key, check);
    if (value !== undefined) return value;
    if (fallback === undefined) this.problem(key, `required (pulumi config set ${key} <value>)`);
    return fallback ?? "";
  }

  choice<T extends string>(key: string, choices: readonly T[], fallback: T): T {
    const value = this.optional(key, (v) => choices.includes(v as T) || `one of ${choices.join(", ")}`);
    return value !== undefined && choices.includes(value as T) ? (value as T) : fallback;
  }

  number(key: string, fallback: number, min: number, max: number, integer = false): number {
    const value = this.optional(key);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed < min || parsed > max || (integer && !Number.isInteger(parsed))) {
      this.problem(key, `expected ${integer ? "an integer" : "a number"} from ${min} to ${max}`);
      return fallback;
    }
    return parsed;
  }

  integer(key: string, fallback: number, min: number, max: number): number {
    return this.number(key, fallback, min, max, true);
  }

  boolean(key: string, fallback: boolean): boolean {
    const value = this.optional(key, (v) => v === "true" || v === "false" || "expected true or false");
    return value === undefined ? fallback : value === "true";
  }

  json(key: string, fallback: unknown): unknown {
    const value = this.optional(key);
    if (value === undefined) return fallback;
    try {
      return JSON.parse(value);
    } catch {
      this.problem(key, "expected JSON (set it with --path, e.g. pulumi config set --path 'key[0]' value)");
      return fallback;
    }
  }
}
