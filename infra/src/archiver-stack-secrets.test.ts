import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { FUNCTION, fn, MYSQL_PASSWORD, ofType, one } from "./testing/deploy-dev-stack";
import { deploy, devStackBundles } from "./testing/dev-stack-bundles";

const REDIS_AUTH = "mock-redis-auth";

beforeAll(devStackBundles.make);
afterAll(devStackBundles.remove);

describe("secrets", () => {
  test("reach only their functions, as Secret Manager references and never as plain values", async () => {
    const run = await deploy();
    const secretKeys = (key: "entry" | "task-handler" | "reader") =>
      (fn(run, key).inputs.serviceConfig.secretEnvironmentVariables as { key: string; secret: string }[])
        .map((s) => `${s.key}=${s.secret}`)
        .sort();
    expect(secretKeys("entry")).toEqual([
      "MYSQL_PASSWORD=archiver-mysql-password",
      "REDIS_AUTH=archiver-redis-auth",
    ]);
    expect(secretKeys("task-handler")).toEqual(secretKeys("entry"));
    expect(secretKeys("reader")).toEqual(["REDIS_AUTH=archiver-redis-auth"]);

    for (const f of ofType(run, FUNCTION)) {
      const plain = JSON.stringify(f.inputs);
      expect(plain).not.toContain(MYSQL_PASSWORD);
      expect(plain).not.toContain(REDIS_AUTH);
    }
    const versions = ofType(run, "gcp:secretmanager/secretVersion:SecretVersion");
    const data = versions.map((v) => v.inputs.secretData as { value: string; [sig: string]: string });
    expect(data.map((d) => d.value).sort()).toEqual([MYSQL_PASSWORD, REDIS_AUTH].sort());
    // Pulumi's secret marker: the values are encrypted in the state, not stored in plain text.
    for (const d of data)
      expect(d["4dabf18193072939515e22adb298388d"]).toBe("1b47061264138c4ac30d75fd1eb44270");
  });

  test("a function is deployed only after its account can read the secrets it mounts", async () => {
    const run = await deploy();
    const accessGrants = ofType(run, "gcp:secretmanager/secretIamMember:SecretIamMember");
    expect(accessGrants.map((g) => g.name).sort()).toEqual(
      [
        "functions-entry-reads-mysql-password",
        "functions-entry-reads-redis-auth",
        "functions-reader-reads-redis-auth",
        "functions-task-handler-reads-mysql-password",
        "functions-task-handler-reads-redis-auth",
      ].sort(),
    );
    // The engine creates a resource once what it depends on exists; registering later orders nothing.
    for (const grant of accessGrants) {
      const owner = grant.name.replace(/-reads-.*$/, "");
      expect(one(run, FUNCTION, owner).dependencies, owner).toContain(grant.name);
    }
  });

  test("replica URLs reach only the task handler, from Secret Manager, with the lag limit they serve", async () => {
    const urls = "mysql://archiver:replica-pw-91@10.10.0.6:3306";
    const run = await deploy({
      "table-archiver:cleanupReplicaUrls": urls,
      "table-archiver:functionEnv": JSON.stringify({ CLEANUP_MAX_REPLICA_LAG_SECONDS: "5" }),
    });
    const secretsOf = (key: "entry" | "task-handler" | "reader") =>
      (fn(run, key).inputs.serviceConfig.secretEnvironmentVariables as { key: string; secret: string }[]).map(
        (s) => `${s.key}=${s.secret}`,
      );
    expect(secretsOf("task-handler")).toContain("CLEANUP_REPLICA_URLS=archiver-cleanup-replica-urls");
    for (const key of ["entry", "reader"] as const) {
      expect(secretsOf(key).join()).not.toContain("CLEANUP_REPLICA_URLS");
      expect(fn(run, key).inputs.serviceConfig.environmentVariables).not.toHaveProperty(
        "CLEANUP_MAX_REPLICA_LAG_SECONDS",
      );
    }
    expect(fn(run, "task-handler").inputs.serviceConfig.environmentVariables).toMatchObject({
      CLEANUP_MAX_REPLICA_LAG_SECONDS: "5",
    });
    for (const f of ofType(run, FUNCTION)) expect(JSON.stringify(f.inputs)).not.toContain("replica-pw-91");
    const grants = ofType(run, "gcp:secretmanager/secretIamMember:SecretIamMember").map((g) => g.name);
    expect(grants.filter((g) => g.includes("replica"))).toEqual([
      "functions-task-handler-reads-cleanup-replica-urls",
    ]);
  });
});
