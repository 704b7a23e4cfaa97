import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as pulumi from "@pulumi/pulumi";
import { describe, expect, test } from "vitest";
import { readStackFile } from "../testing/stack-file";
import { InfraConfigError } from "./infra-config-error";
import { type ConfigSource, readStackConfig } from "./stack-config";

function source(values: Record<string, string>): ConfigSource {
  return {
    get: (key) => values[key],
    getSecret: (key) => (values[key] === undefined ? undefined : pulumi.secret(values[key])),
  };
}

const gcp = source({ project: "p1", region: "europe-west1" });
const minimal = {
  mysqlUrl: "mysql://archiver@10.0.0.5:3306/shop",
  mysqlPassword: "pw",
  mysqlTlsCa: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
};

function problemsOf(values: Record<string, string>, gcpValues = gcp): string {
  try {
    readStackConfig(source(values), gcpValues);
  } catch (error) {
    expect(error).toBeInstanceOf(InfraConfigError);
    expect(pulumi.RunError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error("expected the configuration to be refused");
}

describe("readStackConfig", () => {
  test("fills every default from a minimal stack", () => {
    const config = readStackConfig(source(minimal), gcp);
    expect(config).toMatchObject({
      project: "p1",
      region: "europe-west1",
      mysql: { url: minimal.mysqlUrl, cloudSqlInstance: undefined, cloudSqlIamAuth: false },
      network: { network: "default", subnetwork: "default" },
      redis: { tier: "BASIC", memorySizeGb: 1 },
      warehouse: { datasetId: "archive", location: "europe-west1" },
      queue: {
        maxDispatchesPerSecond: 1,
        maxConcurrentDispatches: 2,
        maxAttempts: 5,
        minBackoff: "10s",
        maxBackoff: "600s",
        maxDoublings: 4,
        dispatchDeadlineSeconds: 600,
      },
      maxDeliveryAttempts: 10,
      timeZone: "UTC",
      readerInvokers: [],
      functionEnv: {},
    });
    expect(config.mysql.password).toBeDefined();
  });

  test("names every problem in one message, each with what to set", () => {
    const message = problemsOf(
      {
        queueMaxConcurrentDispatches: "0",
        dispatchDeadlineSeconds: "3600",
        queueMinBackoff: "10",
        timeZone: "Mars/Olympus",
        redisTier: "HUGE",
        datasetId: "my-dataset",
      },
      source({}),
    );
    for (const expected of [
      "gcp:project: required (pulumi config set gcp:project <value>)",
      "gcp:region: required",
      "mysqlUrl: required (pulumi config set mysqlUrl <value>)",
      "mysqlPassword: required unless cloudSqlIamAuth is true (pulumi config set --secret mysqlPassword)",
      "queueMaxConcurrentDispatches: expected an integer from 1 to 5000",
      "dispatchDeadlineSeconds: expected an integer from 15 to 1800",
      "queueMinBackoff: a duration such as 10s",
      "timeZone: not an IANA time zone",
      "redisTier: one of BASIC, STANDARD_HA",
      "datasetId: letters, digits and _ only",
    ]) {
      expect(message).toContain(expected);
    }
  });

  test("Cloud SQL IAM authentication needs no password", () => {
    const config = readStackConfig(
      source({
        mysqlUrl: minimal.mysqlUrl,
        cloudSqlInstance: "p1:europe-west1:shop",
        cloudSqlIamAuth: "true",
      }),
      gcp,
    );
    expect(config.mysql).toMatchObject({ password: undefined, cloudSqlInstance: "p1:europe-west1:shop" });
  });

  test("extraDatasets takes dataset or project.dataset, each once, and leaves out the stack's own", () => {
    const config = readStackConfig(
      source({
        ...minimal,
        extraDatasets: JSON.stringify([
          "old_orders",
          "shop-archive.orders",
          "shop-archive.orders",
          "archive",
        ]),
      }),
      gcp,
    );
    expect(config.warehouse.extraDatasets).toEqual([
      { project: "p1", datasetId: "old_orders" },
      { project: "shop-archive", datasetId: "orders" },
    ]);
    expect(problemsOf({ ...minimal, extraDatasets: JSON.stringify(["a.b.c", "my-dataset"]) })).toMatch(
      /extraDatasets: a\.b\.c is not dataset or project\.dataset[\s\S]*my-dataset is not/,
    );
  });

  test("refuses to make loadRedisData public", () => {
    const message = problemsOf({
      ...minimal,
      readerInvokers: JSON.stringify(["allUsers", "ana@example.com"]),
    });
    expect(message).toContain("readerInvokers: allUsers would make loadRedisData public");
    expect(message).toContain("readerInvokers: ana@example.com is not an IAM principal");
    expect(problemsOf({ ...minimal, readerInvokers: JSON.stringify(["allAuthenticatedUsers"]) })).toContain(
      "allAuthenticatedUsers would make loadRedisData public",
    );
  });

  test("functionEnv passes tuning variables and refuses unknown, program-owned and secret names", () => {
    const config = readStackConfig(
      source({ ...minimal, functionEnv: JSON.stringify({ LOG_LEVEL: "debug", CLEANUP_CHUNK_ROWS: 2000 }) }),
      gcp,
    );
    expect(config.functionEnv).toEqual({ LOG_LEVEL: "debug", CLEANUP_CHUNK_ROWS: "2000" });

    const message = problemsOf({
      ...minimal,
      functionEnv: JSON.stringify({
        QUEUE: "local",
        MYSQL_PASSWORD: "x",
        NOT_A_VARIABLE: "1",
        LOG_LEVEL: {},
      }),
    });
    expect(message).toContain("functionEnv.QUEUE: set by the program itself");
    expect(message).toContain(
      "functionEnv.MYSQL_PASSWORD: a credential, kept in Secret Manager: pulumi config set --secret mysqlPassword",
    );
    expect(message).toContain("functionEnv.NOT_A_VARIABLE: not a variable the archiver reads");
    expect(message).toContain("functionEnv.LOG_LEVEL: expected a string, number or boolean");
  });

  test("credentials never reach plain configuration: replica URLs and a password in mysqlUrl are refused there", () => {
    const message = problemsOf({
      ...minimal,
      mysqlUrl: "mysql://archiver:hunter2@10.0.0.5:3306/shop",
      functionEnv: JSON.stringify({
        CLEANUP_REPLICA_URLS: "mysql://archiver:hunter2@10.0.0.6",
        CLEANUP_MAX_REPLICA_LAG_SECONDS: 5,
      }),
    });
    expect(message).toContain("mysqlUrl: holds a password");
    expect(message).toContain(
      "functionEnv.CLEANUP_REPLICA_URLS: a credential, kept in Secret Manager: pulumi config set --secret cleanupReplicaUrls",
    );
    expect(
      problemsOf({ ...minimal, functionEnv: JSON.stringify({ CLEANUP_MAX_REPLICA_LAG_SECONDS: 5 }) }),
    ).toContain(
      "functionEnv.CLEANUP_MAX_REPLICA_LAG_SECONDS: needs replicas to measure (pulumi config set --secret cleanupReplicaUrls)",
    );
    const config = readStackConfig(
      source({
        ...minimal,
        cleanupReplicaUrls: "mysql://archiver:hunter2@10.0.0.6",
        functionEnv: JSON.stringify({ CLEANUP_MAX_REPLICA_LAG_SECONDS: 5 }),
      }),
      gcp,
    );
    expect(config.cleanup.replicaUrls).toBeDefined();
  });

  test("several bad keys give one InfraConfigError with one line per problem, naming each key once", () => {
    const message = problemsOf({
      mysqlUrl: "postgres://archiver@10.0.0.5/shop",
      cloudSqlInstance: "shop",
      cloudSqlIamAuth: "yes",
      redisMemorySizeGb: "lots",
      queueMaxDispatchesPerSecond: "0",
      queueMaxBackoff: "10m",
      maxDeliveryAttempts: "4.5",
      network: "vpc-1",
      readerInvokers: JSON.stringify({ ops: "group:ops@example.com" }),
      functionEnv: JSON.stringify(["LOG_LEVEL"]),
    });
    const lines = message.split("\n");
    expect(lines[0]).toBe("the stack's configuration needs fixing:");
    expect(lines.slice(1).sort()).toEqual(
      [
        "  - mysqlUrl: expected mysql://user@host:3306/db",
        "  - mysqlPassword: required unless cloudSqlIamAuth is true (pulumi config set --secret mysqlPassword)",
        "  - cloudSqlInstance: expected project:region:instance",
        "  - cloudSqlIamAuth: expected true or false",
        "  - redisMemorySizeGb: expected an integer from 1 to 300",
        "  - queueMaxDispatchesPerSecond: expected a number from 0.001 to 500",
        "  - queueMaxBackoff: a duration such as 600s",
        "  - maxDeliveryAttempts: expected an integer from 5 to 100",
        "  - readerInvokers: expected a list of IAM principals such as group:ops@example.com",
        "  - functionEnv: expected an object of environment variables",
      ].sort(),
    );
  });

  test("bad JSON and bad values in several structured and plain keys are reported together", () => {
    const message = problemsOf({
      ...minimal,
      readerInvokers: "[group:ops@example.com",
      functionEnv: JSON.stringify({ LOG_LEVEL: null, QUEUE: "local" }),
      queueMaxAttempts: "-2",
      timeZone: "Nowhere/Else",
    });
    for (const expected of [
      "readerInvokers: expected JSON (set it with --path",
      "functionEnv.LOG_LEVEL: expected a string, number or boolean",
      "functionEnv.QUEUE: set by the program itself (or a secret)",
      "queueMaxAttempts: expected an integer from -1 to 1000",
      "timeZone: not an IANA time zone",
    ]) {
      expect(message).toContain(expected);
    }
    expect(message).not.toContain("mysqlUrl");
    expect(message).not.toContain("mysqlPassword");
  });

  test("a blank key counts as unset and takes its default", () => {
    const config = readStackConfig(
      source({ ...minimal, network: "", redisMemorySizeGb: "", timeZone: "" }),
      gcp,
    );
    expect(config).toMatchObject({
      network: { network: "default" },
      redis: { memorySizeGb: 1 },
      timeZone: "UTC",
    });
  });

  test("structured values that are not JSON are reported with how to set them", () => {
    expect(problemsOf({ ...minimal, readerInvokers: "group:ops@example.com" })).toContain(
      "readerInvokers: expected JSON (set it with --path",
    );
  });

  test("the example stack file is complete and sets only keys the program reads; the deploy guide sets every key", () => {
    const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
    const file = readStackFile(path.join(repoRoot, "infra/stack.example.yaml"));
    const requested = new Set<string>();
    const recording = (namespace: string, values: Record<string, string>): ConfigSource => {
      const read = (key: string) => {
        requested.add(`${namespace}:${key}`);
        return values[key];
      };
      return {
        get: read,
        getSecret: (key) => {
          const value = read(key);
          return value === undefined ? undefined : pulumi.secret(value);
        },
      };
    };
    const inNamespace = (namespace: string) =>
      Object.fromEntries(
        Object.entries(file)
          .filter(([key]) => key.startsWith(`${namespace}:`))
          .map(([key, value]) => [key.slice(namespace.length + 1), value]),
      );
    // The credentials are the settings kept out of the file: `pulumi config set --secret` stores it.
    expect(Object.keys(file)).not.toContain("table-archiver:mysqlPassword");
    readStackConfig(
      recording("table-archiver", { ...inNamespace("table-archiver"), mysqlPassword: "set with --secret" }),
      recording("gcp", inNamespace("gcp")),
    );
    expect(Object.keys(file).filter((key) => !requested.has(key))).toEqual([]);

    const guide = readFileSync(path.join(repoRoot, "docs", "deploy.md"), "utf8");
    for (const key of requested) {
      const name = key.startsWith("gcp:") ? key : key.slice("table-archiver:".length);
      expect(guide, key).toMatch(new RegExp(`pulumi config set (--secret |--path ')?${name}\\b`));
    }
  });
});
