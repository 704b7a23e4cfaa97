import { type TestDatabase, uniqueName } from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliSandbox, openCliSandbox } from "./testing/cli-sandbox";

// A monthly-partitioned table migrated and cleaned through the CLI's own commands, as the README shows them.

let cli: CliSandbox;
let db: TestDatabase;
const table = uniqueName("events");

beforeAll(async () => {
  cli = await openCliSandbox("cli-partitions");
  ({ db } = cli);
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

afterAll(() => cli?.close([table]));

const run = (argv: string[]) => cli.run(argv);

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
