import { NO_COUNTS, taskKey } from "@table-archiver/core";
import { createRedisClient, createRedisRunHistory } from "@table-archiver/core/redis";
import { type TestDatabase, testRedisUrl, uniqueName } from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildIfStale, runBuilt } from "./testing/built-cli";
import { type CliSandbox, openCliSandbox } from "./testing/cli-sandbox";

// Each message leaves one row per table in the warehouse's run history once its last task ends,
// and `archiver runs` (the built bundle, as `pnpm archiver` runs it) prints them. On MariaDB,
// Redis and a DuckDB file of the sandbox's.

let cli: CliSandbox;
let db: TestDatabase;
const table = uniqueName("orders");
const gone = uniqueName("gone");
const days = ["2020-01-01", "2020-01-02", "2020-01-03"];

beforeAll(async () => {
  cli = await openCliSandbox("cli-runs");
  db = cli.db;
  await db.connection.query(
    `CREATE TABLE ${table} (id INT AUTO_INCREMENT PRIMARY KEY, created_at DATETIME NOT NULL, total DECIMAL(8,2), KEY (created_at))`,
  );
  const rows = days.flatMap((day, d) => [1, 2, 3].map((h) => [`${day} 0${h}:00:00`, d * 10 + h]));
  await db.connection.query(`INSERT INTO ${table} (created_at, total) VALUES ?`, [rows]);
  await db.connection.query(`CREATE TABLE ${gone} LIKE ${table}`);
  await db.connection.query(`INSERT INTO ${gone} SELECT * FROM ${table}`);
  await buildIfStale();
}, 180_000);

afterAll(() => cli?.close([table, gone]));

const publish = (message: object) => cli.run(["publish", "--wait", "--message", JSON.stringify(message)]);
const runs = async (...argv: string[]) => runBuilt(["runs", ...argv], cli.env, cli.dir);

describe("run history", () => {
  it("records one row per run, partial with a refused day, and archiver runs prints them", async () => {
    expect(JSON.parse((await runs("--json")).stdout)).toEqual([]);
    const migrated = await publish({
      years_to_migrate: 1,
      months_to_migrate: 0,
      source_tables: [table],
      destination_tables: [table],
      filter_columns: ["created_at"],
      policy: table,
    });
    expect(migrated.code).toBe(0);
    // A row arrives in a migrated day: its cleanup is refused, the other two days are cleaned.
    await db.connection.query(`INSERT INTO ${table} (created_at, total) VALUES ('2020-01-02 12:00:00', 99)`);
    const cleaned = await publish({ clean_table: table, filter_column: "created_at", dry_run: false });
    expect(cleaned.code).toBe(1);

    const listed = await runs("--json", "--table", table);
    expect(listed.code).toBe(0);
    const [cleanup, migration, ...more] = JSON.parse(listed.stdout);
    expect(more).toEqual([]);
    expect(migration).toMatchObject({
      table,
      mode: "migration",
      policy: table,
      result: "succeeded",
      queued: 3,
      copied: 3,
      cleaned: 0,
      refused: 0,
      deferred: 0,
      failed: 0,
      rows: 9,
    });
    expect(cleanup).toMatchObject({
      table,
      mode: "cleanup",
      policy: null,
      dry_run: false,
      result: "partial",
      queued: 3,
      cleaned: 2,
      refused: 1,
      failed: 0,
      rows: 6,
    });
    for (const run of [cleanup, migration]) {
      expect(Date.parse(run.ended_at)).toBeGreaterThanOrEqual(Date.parse(run.started_at));
    }

    const text = await runs("--table", table);
    expect(text.stdout.trim().split("\n")).toEqual([
      expect.stringMatching(new RegExp(`Z ${table} cleanup partial: 2 days cleaned, 1 refused, 6 rows, `)),
      expect.stringMatching(
        new RegExp(`Z ${table} migration succeeded: 3 days copied, 9 rows, .*policy ${table}`),
      ),
    ]);
    expect((await runs("--table", "no_such_table")).stdout).toBe(
      `no run of no_such_table recorded in dataset archive\n`,
    );
  });

  it("fails a run whose task fails for good (its one attempt), and ends it once", async () => {
    const message = {
      years_to_migrate: 1,
      months_to_migrate: 0,
      source_tables: [gone],
      destination_tables: [gone],
      filter_columns: ["created_at"],
    };
    expect((await cli.run(["publish", "--message", JSON.stringify(message)])).code).toBe(0);
    // The table goes before the worker copies it: each copy task fails, and TASK_ATTEMPTS is 1.
    await db.connection.query(`DROP TABLE ${gone}`);
    expect((await cli.run(["worker", "--drain"])).code).toBe(1);
    const [run, ...more] = JSON.parse((await runs("--json", "--table", gone)).stdout);
    expect(more).toEqual([]);
    expect(run).toMatchObject({
      table: gone,
      mode: "migration",
      queued: 3,
      copied: 0,
      failed: 3,
      result: "failed",
    });
  });

  it("ends a run that heard nothing past RUN_STALE_AFTER_HOURS as the next one begins, and leaves a recent one open", async () => {
    const redis = createRedisClient({ url: testRedisUrl, auth: undefined });
    try {
      // Runs the entry function began, whose tasks' ends were lost: one two days silent, one an hour.
      const history = createRedisRunHistory(redis, { prefix: cli.env.LOCAL_QUEUE_PREFIX });
      const ago = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();
      const copy = (day: string) => taskKey({ kind: "copy", table, day });
      const start = (hours: number) =>
        ({
          id: crypto.randomUUID(),
          table,
          mode: "migration",
          dataset: "archive",
          startedAt: ago(hours),
        }) as const;
      const stale = start(72);
      await history.begin(stale, [copy("2019-12-30"), copy("2019-12-31")], NO_COUNTS, stale.startedAt);
      await history.taskEnded(stale.id, {
        task: copy("2019-12-30"),
        endedAt: ago(48),
        counts: { copied: 1, rows: 3 },
      });
      const recent = start(1);
      await history.begin(recent, [copy("2019-12-29")], NO_COUNTS, recent.startedAt);

      // The next migration of the table: its days are copied already, so it queues nothing and ends at once.
      const published = await publish({
        years_to_migrate: 1,
        months_to_migrate: 0,
        source_tables: [table],
        destination_tables: [table],
        filter_columns: ["created_at"],
      });
      expect(published.code).toBe(0);

      const listed = JSON.parse((await runs("--json", "--table", table)).stdout) as Array<
        Record<string, unknown>
      >;
      expect(listed.find((run) => run.run_id === stale.id)).toMatchObject({
        mode: "migration",
        result: "failed",
        queued: 2,
        copied: 1,
        failed: 1,
        rows: 3,
      });
      expect(listed.find((run) => run.run_id === recent.id)).toBeUndefined();
      expect((await history.openRuns(table, "migration")).map((run) => run.start.id)).toEqual([recent.id]);
      expect((await runs("--table", table)).stdout).toMatch(
        new RegExp(`Z ${table} migration failed: 1 day copied, 1 failed, 3 rows`),
      );
    } finally {
      redis.disconnect();
    }
  });
});
