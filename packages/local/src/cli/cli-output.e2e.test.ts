import { PassThrough, Readable } from "node:stream";
import { type TestDatabase, uniqueName } from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliIo } from "./cli-io";
import { runCli } from "./run-cli";
import { type CliSandbox, openCliSandbox } from "./testing/cli-sandbox";
import { fakeTerminal } from "./testing/fake-terminal";

let cli: CliSandbox;
let db: TestDatabase;
let env: Record<string, string>;
const tables: string[] = [];

beforeAll(async () => {
  cli = await openCliSandbox("cli-output", {
    LOG_LEVEL: "info",
    // Two cleanups of neighbouring days of one small table can deadlock (and be retried); this file is about output.
    CLEANUP_CONCURRENCY: "1",
  });
  ({ db, env } = cli);
});

// The queue's keys, and each table's migrated days, copy records and cleanup state.
afterAll(() => cli?.close(tables));

/** A table with `days` days of three rows each, from 2020-01-01. */
async function ordersTable(days: number): Promise<string> {
  const table = uniqueName("orders");
  tables.push(table);
  await db.connection.query(
    `CREATE TABLE ${table} (id INT AUTO_INCREMENT PRIMARY KEY, created_at DATETIME NOT NULL, KEY (created_at))`,
  );
  const rows = Array.from({ length: days * 3 }, (_, i) => [
    `2020-01-${String(1 + (i % days)).padStart(2, "0")} 0${i % 10}:00:00`,
  ]);
  await db.connection.query(`INSERT INTO ${table} (created_at) VALUES ?`, [rows]);
  return table;
}

const migration = (table: string) =>
  JSON.stringify({
    years_to_migrate: 1,
    months_to_migrate: 0,
    source_tables: [table],
    destination_tables: [`${table}_archive`],
    filter_columns: ["created_at"],
    tasks_enqueued_limit: 50,
  });
const cleanup = (table: string, dryRun: boolean) =>
  JSON.stringify({ clean_table: table, filter_column: "created_at", dry_run: dryRun });

async function piped(argv: string[]) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on("data", (chunk) => out.push(String(chunk)));
  stderr.on("data", (chunk) => err.push(String(chunk)));
  const io: CliIo = { env, stdin: Readable.from([""]), stdout, stderr };
  const code = await runCli(argv, io);
  return { code, stdout: out.join(""), stderr: err.join("") };
}

const BAR = / jobs-migration \[/;

describe("archiver output on a terminal", () => {
  it("prints a short line per day above the bar, never inside it", async () => {
    const table = await ordersTable(5);
    const terminal = fakeTerminal(env, 100);
    expect(await runCli(["publish", "--wait", "--message", migration(table)], terminal.io)).toBe(0);

    const lines = terminal.lines();
    expect(lines[0]).toMatch(
      new RegExp(`^accepted: ${table}: 5 days enqueued \\(2020-01-01 .. 2020-01-05\\)`),
    );
    const days = lines.slice(1, 6);
    expect(days.map((line) => line.replace(/ in \d+ ms$/, "")).sort()).toEqual(
      [1, 2, 3, 4, 5].map((d) => `copied ${table} 2020-01-0${d}: 3 rows`),
    );
    expect(lines[6]).toMatch(BAR);
    expect(lines[6]).toContain("5/5 tasks | 15 rows copied | ");
    expect(lines[7]).toBe("queue jobs-migration is empty: 5 days copied (15 rows); 0 failed for good");
    expect(lines).toHaveLength(8);
    // No JSON, and the bar only ever on its own line.
    expect(lines.filter((line) => line.includes("{"))).toEqual([]);
    expect(lines.filter((line) => BAR.test(line))).toHaveLength(1);
  });

  it("counts a cleanup's deleted rows and says what was queued and verified", async () => {
    const table = await ordersTable(3);
    expect(await runCli(["publish", "--wait", "--message", migration(table)], fakeTerminal(env).io)).toBe(0);

    const dry = fakeTerminal(env, 160);
    expect(await runCli(["publish", "--message", cleanup(table, true)], dry.io)).toBe(0);
    expect(dry.lines()).toEqual([
      `verified ${table} 2020-01-01: 3 rows would be deleted`,
      `verified ${table} 2020-01-02: 3 rows would be deleted`,
      `verified ${table} 2020-01-03: 3 rows would be deleted`,
      `dry run of cleanup of ${table}: 3 days verified, 0 refused, 9 rows would be deleted; nothing was deleted`,
    ]);

    const real = fakeTerminal(env, 100);
    // On failure, the screen says why.
    expect([
      await runCli(["publish", "--wait", "--message", cleanup(table, false)], real.io),
      real.lines(),
    ]).toEqual([0, expect.anything()]);
    const lines = real.lines();
    expect(lines[0]).toBe(`accepted: cleanup of ${table}: 3 days queued, 0 already queued, 0 refused`);
    expect(
      lines
        .slice(1, 4)
        .map((line) => line.replace(/ in \d+ ms$/, ""))
        .sort(),
    ).toEqual([1, 2, 3].map((d) => `cleaned ${table} 2020-01-0${d}: 3 rows deleted`));
    expect(lines[4]).toContain("3/3 tasks | 9 rows deleted | ");
    expect(lines[5]).toBe(
      "queue jobs-migration is empty: 3 days cleaned (9 rows deleted); 0 failed for good",
    );
    expect(lines).toHaveLength(6);
  });
});

describe("archiver output into a pipe", () => {
  it("keeps JSON log lines on stdout, beside the progress and closing lines", async () => {
    const table = await ordersTable(2);
    const result = await piped(["publish", "--wait", "--message", migration(table)]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    const lines = result.stdout.trim().split("\n");
    const logged = lines.filter((line) => line.startsWith("{")).map((line) => JSON.parse(line));
    expect(logged.filter((entry) => entry.message === "copied day")).toEqual([
      expect.objectContaining({ severity: "INFO", table, rows: 3 }),
      expect.objectContaining({ severity: "INFO", table, rows: 3 }),
    ]);
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(`^accepted: ${table}: 2 days enqueued \\(2020-01-01 .. 2020-01-02\\)`),
      ),
    );
    expect(lines.at(-1)).toBe("queue jobs-migration is empty: 2 days copied (6 rows); 0 failed for good");
  });

  it("prints a rejected message's error once, on stderr", async () => {
    const result = await piped([
      "publish",
      "--message",
      JSON.stringify({
        ...JSON.parse(migration("orders")),
        source_table: ["orders"],
        source_tables: undefined,
      }),
    ]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe('error: source_table: unknown field; did you mean "source_tables"?\n');
  });

  it("prints a task that failed for good once, on stderr", async () => {
    const table = await ordersTable(1);
    expect((await piped(["publish", "--message", migration(table)])).code).toBe(0);
    await db.connection.query(`DROP TABLE ${table}`);
    const result = await piped(["worker", "--drain"]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(new RegExp(`^failed: ${table} 2020-01-01 \\(copy\\): `)),
    ]);
    expect(result.stdout).not.toContain("task failed");
  });
});
