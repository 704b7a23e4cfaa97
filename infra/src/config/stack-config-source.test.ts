import * as pulumi from "@pulumi/pulumi";
import { describe, expect, test } from "vitest";
import { InfraConfigError } from "./infra-config-error";
import { type ConfigSource, readStackConfig } from "./stack-config";

// The keys of the source's TLS, who may publish, and the cleanup's retention floor.

function source(values: Record<string, string>): ConfigSource {
  return {
    get: (key) => values[key],
    getSecret: (key) => (values[key] === undefined ? undefined : pulumi.secret(values[key])),
  };
}

const gcp = source({ project: "p1", region: "europe-west1" });
const CA = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n";
const plain = { mysqlUrl: "mysql://archiver@10.0.0.5:3306/shop", mysqlPassword: "pw" };
const read = (values: Record<string, string>) => readStackConfig(source(values), gcp);

function problemsOf(values: Record<string, string>): string {
  try {
    read(values);
  } catch (error) {
    expect(error).toBeInstanceOf(InfraConfigError);
    return (error as Error).message;
  }
  throw new Error("expected the configuration to be refused");
}

describe("TLS to MySQL", () => {
  test("a stack with neither a CA nor the Cloud SQL connector is refused, naming both keys", () => {
    const message = problemsOf(plain);
    expect(message).toContain("mysqlTlsCa or cloudSqlInstance: one is required");
    expect(message).toContain("without TLS");
  });

  test("a CA (PEM) or a Cloud SQL instance is enough", () => {
    expect(read({ ...plain, mysqlTlsCa: CA }).mysql.tlsCa).toBe(CA);
    expect(read({ ...plain, cloudSqlInstance: "prod-db:europe-west1:shop" }).mysql).toMatchObject({
      cloudSqlInstance: "prod-db:europe-west1:shop",
      tlsCa: undefined,
    });
  });

  test("a CA that is not PEM text (a path of the deployer's machine) is refused by name", () => {
    expect(problemsOf({ ...plain, mysqlTlsCa: "/etc/ssl/mysql-ca.pem" })).toContain(
      "mysqlTlsCa: expected the CA certificate as PEM text",
    );
  });
});

describe("publishers", () => {
  test("are none by default, and the principals named", () => {
    expect(read({ ...plain, mysqlTlsCa: CA }).publishers).toEqual([]);
    const publishers = ["group:ops@example.com", "serviceAccount:cron@p1.iam.gserviceaccount.com"];
    expect(read({ ...plain, mysqlTlsCa: CA, publishers: JSON.stringify(publishers) }).publishers).toEqual(
      publishers,
    );
  });

  test("a malformed or public principal is refused by name", () => {
    const message = problemsOf({
      ...plain,
      mysqlTlsCa: CA,
      publishers: JSON.stringify(["ops@example.com", "allUsers"]),
    });
    expect(message).toContain("publishers: ops@example.com is not an IAM principal");
    expect(message).toContain("publishers: allUsers would let anyone publish cleanups");
  });
});

describe("minRetentionDays", () => {
  test("is unset by default (the code's own 30 applies) and a whole number of days when set", () => {
    expect(read({ ...plain, mysqlTlsCa: CA }).minRetentionDays).toBeUndefined();
    expect(read({ ...plain, mysqlTlsCa: CA, minRetentionDays: "90" }).minRetentionDays).toBe(90);
    expect(read({ ...plain, mysqlTlsCa: CA, minRetentionDays: "0" }).minRetentionDays).toBe(0);
  });

  test("set through functionEnv it is refused, naming the stack key to use, as is MYSQL_TLS_CA", () => {
    const message = problemsOf({
      ...plain,
      mysqlTlsCa: CA,
      functionEnv: JSON.stringify({ MIN_RETENTION_DAYS: 90, MYSQL_TLS_CA: CA }),
    });
    expect(message).toContain("functionEnv.MIN_RETENTION_DAYS: set with the stack key minRetentionDays");
    expect(message).toContain("functionEnv.MYSQL_TLS_CA: set with the stack key mysqlTlsCa");
  });

  test.each(["-1", "7.5", "a month"])("%s is refused by name", (days) => {
    expect(problemsOf({ ...plain, mysqlTlsCa: CA, minRetentionDays: days })).toContain(
      "minRetentionDays: expected a whole number of days, 0 or more",
    );
  });
});
