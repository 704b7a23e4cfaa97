import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { type TestDatabase, uniqueName } from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliSandbox, openCliSandbox } from "./testing/cli-sandbox";

let cli: CliSandbox;
let db: TestDatabase;
let env: Record<string, string>;
const table = uniqueName("orders");
const days = ["2020-01-01", "2020-01-02", "2020-01-03"];

beforeAll(async () => {
  cli = await openCliSandbox("cli-refusal");
  ({ db, env } = cli);
  await db.connection.query(
    `CREATE TABLE ${table} (id INT AUTO_INCREMENT PRIMARY KEY, created_at DATETIME NOT NULL, total DECIMAL(8,2), KEY (created_at))`,
  );
  // Three rows on each of three days.
  const rows = days.flatMap((day, d) => [1, 2, 3].map((h) => [`${day} 0${h}:00:00`, d * 10 + h]));
  await db.connection.query(`INSERT INTO ${table} (created_at, total) VALUES ?`, [rows]);
});

afterAll(() => cli?.close([table]));

const run = (argv: string[], overrides: Record<string, string> = {}) => cli.run(argv, overrides);

async function rowsOf(day: string): Promise<number> {
  const [rows] = await db.connection.query(
    `SELECT COUNT(*) AS n FROM ${table} WHERE created_at >= ? AND created_at < ? + INTERVAL 1 DAY`,
    [day, day],
  );
  return Number((rows as { n: number | string }[])[0]?.n);
}

describe("publish --wait, when a cleanup refuses a day", () => {
  it("prints the refusal once on stderr, cleans the other days, sums it all up and exits 1", async () => {
    const migration = JSON.stringify({
      years_to_migrate: 1,
      months_to_migrate: 0,
      source_tables: [table],
      destination_tables: [`${table}_archive`],
      filter_columns: ["created_at"],
      tasks_enqueued_limit: 10,
    });
    const migrated = await run(["publish", "--wait", "--message", migration]);
    expect(migrated.code).toBe(0);
    expect(migrated.stderr).toBe("");
    expect(migrated.stdout).toContain(
      "queue jobs-migration is empty: 3 days copied (9 rows); 0 failed for good",
    );

    // A row arrives in a migrated day: its copy no longer matches the source.
    await db.connection.query(`INSERT INTO ${table} (created_at, total) VALUES ('2020-01-02 12:00:00', 99)`);
    // Pointed at a warehouse file that does not exist, a cleanup says so once and creates no file.
    const missing = join(dirname(env.DUCKDB_PATH ?? ""), "elsewhere.duckdb");
    const nowhere = await run(
      ["publish", "--message", JSON.stringify({ clean_table: table, filter_column: "created_at" })],
      { DUCKDB_PATH: missing },
    );
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^error: the DuckDB file .*elsewhere\.duckdb \(DUCKDB_PATH\) does not exist/),
    ]);
    expect(existsSync(missing)).toBe(false);

    // The dry run names the day it would refuse on stderr, and deletes nothing.
    const dry = await run([
      "publish",
      "--message",
      JSON.stringify({ clean_table: table, filter_column: "created_at" }),
    ]);
    expect(dry.code).toBe(0);
    expect(dry.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        new RegExp(`^refused \\(dry run\\): ${table} 2020-01-02: .*rows added: 1 row more than copied`),
      ),
    ]);
    expect(dry.stdout).toContain(
      `dry run of cleanup of ${table}: 2 days verified, 1 refused, 6 rows would be deleted; nothing was deleted\n`,
    );
    expect(await rowsOf("2020-01-01")).toBe(3);

    const cleanup = JSON.stringify({ clean_table: table, filter_column: "created_at", dry_run: false });
    const result = await run(["publish", "--wait", "--message", cleanup]);

    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      `accepted: cleanup of ${table}: 3 days queued, 0 already queued, 0 refused\n`,
    );
    const stderr = result.stderr.trim().split("\n");
    expect(stderr).toHaveLength(1);
    expect(stderr[0]).toMatch(new RegExp(`^refused: ${table} 2020-01-02: .*changed`));
    // The line names the day once, not again from the error's own message.
    expect(stderr[0]?.split(`${table} 2020-01-02`)).toHaveLength(2);
    expect(result.stdout).toMatch(
      /queue jobs-migration is empty: 2 days cleaned \(6 rows deleted\); 1 day refused \(changed\); 0 failed for good\n/,
    );
    expect(await rowsOf("2020-01-01")).toBe(0);
    expect(await rowsOf("2020-01-02")).toBe(4);
    expect(await rowsOf("2020-01-03")).toBe(0);

    // A second run finds the two days done and refuses the changed one again.
    const again = await run(["publish", "--wait", "--message", cleanup]);
    expect(again.code).toBe(1);
    expect(again.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^refused: /)]);
    expect(again.stdout).toContain(
      "queue jobs-migration is empty: 1 day refused (changed); 0 failed for good",
    );
  });
});
