import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createTestAccount,
  createTestDatabase,
  DOCUMENTED_GRANTS,
  type TestAccount,
  type TestDatabase,
  testRedisUrl,
  uniqueName,
} from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCaptured } from "./testing/run-captured";

let db: TestDatabase;
let folder: string;
const accounts: TestAccount[] = [];
const table = uniqueName("orders");

beforeAll(async () => {
  db = await createTestDatabase();
  folder = await mkdtemp(join(tmpdir(), "cli-check-"));
  await db.connection.query(
    `CREATE TABLE ${table} (id INT PRIMARY KEY, created_at DATETIME NOT NULL, KEY (created_at)) ENGINE=InnoDB`,
  );
});

afterAll(async () => {
  for (const account of accounts) await account.drop();
  await db?.drop();
  await rm(folder, { recursive: true, force: true });
});

async function checkAs(grants: readonly string[], argv: string[], name = table) {
  const account = await createTestAccount(db.name, grants);
  accounts.push(account);
  const env = {
    MYSQL_URL: account.url,
    REDIS_URL: testRedisUrl,
    DUCKDB_PATH: join(folder, "w.duckdb"),
    LOCAL_QUEUE_PREFIX: uniqueName("cli"),
    LOG_LEVEL: "error",
  };
  const { code, stdout } = await runCaptured(["check", "--table", name, ...argv], env);
  return { code, stdout, account: account.account };
}

describe("archiver check", () => {
  it("says what an account with SELECT and DELETE only lacks for a cleanup, with the statements, and exits 1", async () => {
    const { code, stdout, account } = await checkAs(
      [`GRANT SELECT, DELETE ON \`${db.name}\`.\`${table}\` TO {account}`],
      ["--cleanup"],
    );
    expect(code).toBe(1);
    expect(stdout).toContain(`account ${account} on MariaDB`);
    expect(stdout).toMatch(/ok {7}copy: read .*: SELECT/);
    expect(stdout).toMatch(/MISSING {2}cleanup: see every foreign key .*: PROCESS/);
    expect(stdout).toContain(`fix: GRANT PROCESS ON *.* TO ${account};`);
    expect(stdout).toContain(`fix: GRANT TRIGGER ON \`${db.name}\`.\`${table}\` TO ${account};`);
  });

  it("says, for a range-partitioned table, whether its partitions may be emptied at once, without failing", async () => {
    const events = uniqueName("events");
    await db.connection.query(
      `CREATE TABLE ${events} (id INT NOT NULL, created_at DATETIME NOT NULL, PRIMARY KEY (id, created_at))
       PARTITION BY RANGE COLUMNS (created_at) (PARTITION p0 VALUES LESS THAN (MAXVALUE))`,
    );
    const run = async (grants: readonly string[]) => {
      const result = await checkAs(grants, ["--cleanup"], events);
      return {
        ...result,
        line: result.stdout.split("\n").find((line) => line.includes("partition cleanup")),
      };
    };
    const without = await run(DOCUMENTED_GRANTS.cleanup(db.name));
    expect(without.code).toBe(0);
    expect(without.line).toMatch(/^without {2}partition cleanup \(optional\)/);
    expect(without.stdout).toContain(
      `to allow it: GRANT CREATE, DROP, ALTER, INSERT ON \`${db.name}\`.* TO ${without.account};`,
    );
    const granted = await run([
      ...DOCUMENTED_GRANTS.cleanup(db.name),
      ...DOCUMENTED_GRANTS.partitions(db.name),
    ]);
    expect(granted.code).toBe(0);
    expect(granted.line).toMatch(/^ok {7}partition cleanup \(optional\)/);
  });

  it("passes the documented grants and exits 0; a copy needs SELECT only", async () => {
    const cleanup = await checkAs(DOCUMENTED_GRANTS.cleanup(db.name), ["--cleanup", "--json"]);
    expect(cleanup.code).toBe(0);
    const report = JSON.parse(cleanup.stdout) as { ok: boolean; checks: { for: string; ok: boolean }[] };
    expect(report.ok).toBe(true);
    expect(report.checks.map((check) => check.for)).toEqual(["copy", "cleanup", "cleanup", "cleanup"]);

    expect(report).not.toHaveProperty("partitions");

    const copy = await checkAs(DOCUMENTED_GRANTS.copy(db.name), []);
    expect(copy.code).toBe(0);
    expect(copy.stdout).toContain("the account has everything a copy of");
  });
});
