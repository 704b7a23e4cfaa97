import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRedisClient } from "@table-archiver/core/redis";
import {
  createTestDatabase,
  deleteKeysWithPrefix,
  type TestDatabase,
  testRedisUrl,
  uniqueName,
} from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCaptured } from "./testing/run-captured";

// A monthly-partitioned table migrated and cleaned through the CLI's own commands, as the README shows them.

let db: TestDatabase;
let env: Record<string, string>;
let dir: string | undefined;
const table = uniqueName("events");

beforeAll(async () => {
  db = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), "cli-partitions-"));
  env = {
    MYSQL_URL: db.url,
    REDIS_URL: testRedisUrl,
    DUCKDB_PATH: join(dir, "w.duckdb"),
    LOCAL_QUEUE_PREFIX: uniqueName("cli"),
    LOG_LEVEL: "error",
    TASK_ATTEMPTS: "1",
  };
  await db.connection.query(
    `CREATE TABLE ${table} (id INT NOT NULL AUTO_INCREMENT, created_at DATETIME NOT NULL, total DECIMAL(8,2),
       PRIMARY KEY (id, created_at), KEY (created_at))
     PARTITION BY RANGE (TO_DAYS(created_at)) (
       PARTITION p2020_01 VALUES LESS THAN (TO_DAYS('2020-02-01')),
       PARTITION p2020_02 VALUES LESS THAN (TO_DAYS('2020-03-01')),
       PARTITION pmax VALUES LESS THAN MAXVALUE)`,
  );
  const days = ["2020-01-01", "2020-01-02", "2020-02-01"];
  const rows = days.flatMap((day, d) => [1, 2, 3].map((h) => [`${day} 0${h}:00:00`, d * 10 + h]));
  await db.connection.query(`INSERT INTO ${table} (created_at, total) VALUES ?`, [rows]);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  const redis = createRedisClient({ url: testRedisUrl, auth: undefined });
  try {
    if (env) await deleteKeysWithPrefix(redis, env.LOCAL_QUEUE_PREFIX ?? "");
    for await (const keys of redis.scanStream({ match: `*${table}*` }) as AsyncIterable<string[]>) {
      if (keys.length > 0) await redis.del(...keys);
    }
  } finally {
    await redis.quit();
  }
  await db?.drop();
});

const run = (argv: string[]) => runCaptured(argv, env);

describe("cleanup of a partitioned table through the CLI", () => {
  it("dry-runs per partition, then empties each old partition at once and counts its days", async () => {
    const migration = JSON.stringify({
      years_to_migrate: 1,
      months_to_migrate: 0,
      source_tables: [table],
      destination_tables: [`${table}_archive`],
      filter_columns: ["created_at"],
      tasks_enqueued_limit: 10,
    });
    expect((await run(["publish", "--wait", "--message", migration])).code).toBe(0);

    const dry = await run([
      "publish",
      "--message",
      JSON.stringify({ clean_table: table, filter_column: "created_at" }),
    ]);
    expect([dry.code, dry.stderr]).toEqual([0, ""]);
    expect(dry.stdout).toContain(
      `dry run of cleanup of ${table}: 3 days verified, 0 refused, 9 rows would be deleted; nothing was deleted\n` +
        "  partition p2020_01: would be emptied at once (2 days)\n" +
        "  partition p2020_02: would be emptied at once (1 day)\n",
    );

    const cleanup = JSON.stringify({ clean_table: table, filter_column: "created_at", dry_run: false });
    const result = await run(["publish", "--wait", "--message", cleanup]);
    expect([result.code, result.stderr]).toEqual([0, ""]);
    expect(result.stdout).toContain(
      `accepted: cleanup of ${table}: 2 tasks queued (2 partitions emptied at once, 0 days), 0 already queued, 0 refused\n`,
    );
    expect(result.stdout).toMatch(/queue jobs-migration is empty: 3 days cleaned \(9 rows deleted\)/);
    const [left] = await db.connection.query(`SELECT COUNT(*) AS n FROM ${table}`);
    expect(Number((left as { n: number }[])[0]?.n)).toBe(0);

    const status = await run(["status"]);
    expect(status.stdout).toContain(`${table}: 3 days migrated (2020-01-01 .. 2020-02-01), 3 cleaned\n`);
    expect(status.stdout).not.toContain("detached");
  }, 60_000);
});
