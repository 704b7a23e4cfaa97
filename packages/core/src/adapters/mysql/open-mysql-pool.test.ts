import { Socket } from "node:net";
import { AuthTypes, IpAddressTypes } from "@google-cloud/cloud-sql-connector";
import { describe, expect, it } from "vitest";
import { TransientError } from "../../errors";
import type { CloudSqlConnector } from "./cloud-sql-options";
import { mysqlConnectionOptions } from "./open-mysql-pool";

function fakeConnector(fail?: Error) {
  const calls: Parameters<CloudSqlConnector["getOptions"]>[0][] = [];
  let closed = 0;
  const stream = () => new Socket();
  const connector: CloudSqlConnector = {
    async getOptions(options) {
      calls.push(options);
      if (fail) throw fail;
      return { stream };
    },
    close() {
      closed++;
    },
  };
  return { connector, calls, stream, closed: () => closed };
}

const tls = { ca: undefined, rejectUnauthorized: true };
const cloudSql = { iamAuth: false, ipType: "PRIVATE" as const };

describe("mysqlConnectionOptions", () => {
  it("connects through the Cloud SQL connector with IAM database authentication when asked", async () => {
    const fake = fakeConnector();
    const result = await mysqlConnectionOptions(
      {
        tls,
        cloudSql: { instance: "acme:europe-west1:orders", iamAuth: true, ipType: "PSC" },
      },
      fake.connector,
    );
    expect(fake.calls).toEqual([
      {
        instanceConnectionName: "acme:europe-west1:orders",
        ipType: IpAddressTypes.PSC,
        authType: AuthTypes.IAM,
      },
    ]);
    expect(result.options).toEqual({ stream: fake.stream });
    expect(result.options).not.toHaveProperty("password");
    expect(fake.closed()).toBe(0);
    await result.close();
    expect(fake.closed()).toBe(1);
  });

  it("uses password authentication over the private IP by default, and ignores the TLS variables", async () => {
    const fake = fakeConnector();
    const result = await mysqlConnectionOptions(
      {
        tls: { ...tls, rejectUnauthorized: false },
        cloudSql: { ...cloudSql, instance: "acme:us-central1:db" },
      },
      fake.connector,
    );
    expect(fake.calls[0]).toMatchObject({ ipType: IpAddressTypes.PRIVATE, authType: AuthTypes.PASSWORD });
    expect(result.options).not.toHaveProperty("ssl");
  });

  it("reports a connector that cannot start as transient, naming the role, and releases it", async () => {
    const fake = fakeConnector(new Error("403 cloudsql.instances.connect denied"));
    const failure = mysqlConnectionOptions(
      { tls, cloudSql: { ...cloudSql, instance: "acme:us-central1:db" } },
      fake.connector,
    );
    await expect(failure).rejects.toBeInstanceOf(TransientError);
    await expect(failure).rejects.toThrow(/roles\/cloudsql\.client/);
    expect(fake.closed()).toBe(1);
  });

  it("falls back to the TLS options without a Cloud SQL instance", async () => {
    const fake = fakeConnector();
    const result = await mysqlConnectionOptions(
      { tls: { ...tls, rejectUnauthorized: false } },
      fake.connector,
    );
    expect(result.options).toEqual({ ssl: { rejectUnauthorized: false } });
    expect(fake.calls).toEqual([]);
  });
});
