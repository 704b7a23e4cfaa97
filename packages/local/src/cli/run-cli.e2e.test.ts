import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type TestDatabase, uniqueName } from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliSandbox, openCliSandbox } from "./testing/cli-sandbox";

let cli: CliSandbox;
let db: TestDatabase;
let dir: string;
const table = uniqueName("orders");

beforeAll(async () => {
  cli = await openCliSandbox("cli");
  ({ db, dir } = cli);
  await db.connection.query(
    `CREATE TABLE ${table} (id INT AUTO_INCREMENT PRIMARY KEY, created_at DATETIME NOT NULL, total DECIMAL(8,2), KEY (created_at))`,
  );
  const rows = Array.from({ length: 30 }, (_, i) => [
    `2020-01-${String(1 + (i % 10)).padStart(2, "0")} 0${i % 10}:00:00`,
    i,
  ]);
  await db.connection.query(`INSERT INTO ${table} (created_at, total) VALUES ?`, [rows]);
});

afterAll(() => cli?.close([table]));

const run = (argv: string[], stdin = "", extraEnv: Record<string, string> = {}) =>
  cli.run(argv, extraEnv, stdin);

const message = (limit: number, tables = [table]) =>
  JSON.stringify({
    years_to_migrate: 1,
    months_to_migrate: 0,
    source_tables: tables,
    destination_tables: tables.map((t) => `${t}_archive`),
    filter_columns: tables.map(() => "created_at"),
    tasks_enqueued_limit: limit,
  });

async function status() {
  const result = await run(["status", "--json"]);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}

describe("archiver CLI", () => {
  it.each([
    ["not JSON", ["publish", "--message", "{oops"], "message"],
    [
      "an unknown field",
      ["publish", "--message", JSON.stringify({ ...JSON.parse(message(5)), extra: 1 })],
      "extra",
    ],
    ["a missing table", ["publish", "--message", message(5, ["no_such_table"])], "source_tables[0]"],
    ["--dataset without --rebuild", ["status", "--dataset", "archive"], "dataset"],
    ["a bad dataset to rebuild from", ["status", "--rebuild", "--dataset", "no-such.set"], "dataset"],
  ])("rejects %s with exit 2, one line, and enqueues nothing", async (_case, argv, field) => {
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain(field);
    expect((await status()).queue.tasks).toBe(0);
  });

  it("refuses a cleanup message with a 3 MB unknown key with exit 2, by its size, and enqueues nothing", async () => {
    const file = join(dir, "huge-key.json");
    const huge = "k".repeat(3 * 1024 * 1024);
    await writeFile(file, JSON.stringify({ clean_table: table, filter_column: "created_at", [huge]: true }));
    const started = performance.now();
    const result = await run(["publish", "--file", file]);
    // Generous: it once took a minute and 2.4 GB; what matters is that nothing grows with the key.
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "error: message: is over 512 KiB (524288 bytes), the most a message may have\n",
    );
    expect((await status()).queue.tasks).toBe(0);
  });

  it("names a long unknown key under the limit by its first 64 characters, with exit 2 and no suggestion", async () => {
    const long = "k".repeat(400 * 1024);
    const file = join(dir, "long-key.json");
    await writeFile(file, JSON.stringify({ clean_table: table, filter_column: "created_at", [long]: true }));
    const result = await run(["publish", "--file", file]);
    expect(result.code).toBe(2);
    expect(result.stderr.startsWith(`error: ${long.slice(0, 64)}…: unknown field (known fields: `)).toBe(
      true,
    );
    expect(result.stderr).not.toContain("did you mean");
    expect(result.stderr.length).toBeLessThan(500);
  });

  it("says no message was given when stdin is empty, with exit 2", async () => {
    const result = await run(["publish"], "");
    expect(result).toMatchObject({
      code: 2,
      stderr: "error: message: no message given (use --message, --file or stdin)\n",
    });
  });

  it("publishes from a file and from stdin, then status counts the queued tasks", async () => {
    const file = join(dir, "message.json");
    await writeFile(file, message(3));
    const fromFile = await run(["publish", "--file", file]);
    expect(fromFile.code).toBe(0);
    expect(fromFile.stdout).toContain("3 days enqueued");
    const fromStdin = await run(["publish", "-"], message(5));
    expect(fromStdin.code).toBe(0);
    // The second run skips the three queued days and enqueues five more.
    expect((await status()).queue).toEqual({ name: "jobs-migration", tasks: 8 });
  });

  it("publish --wait works the queue until it is empty and status shows the migrated days", async () => {
    const result = await run(["publish", "--wait", "--message", message(10)]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain(
      "queue jobs-migration is empty: 10 days copied (30 rows); 0 failed for good",
    );
    // The ten tasks: the eight queued by the test above and the two days this message adds.
    const lines = [...result.stdout.matchAll(/progress: (\d+) done, (\d+) failed, (\d+) left/g)];
    expect(lines.length).toBeGreaterThan(0);
    for (const [, done, failed, left] of lines)
      expect(Number(done) + Number(failed) + Number(left)).toBeLessThanOrEqual(10);
    expect(lines.at(-1)?.slice(1)).toEqual(["10", "0", "0"]);
    const after = await status();
    expect(after.queue.tasks).toBe(0);
    expect(after.tables).toContainEqual({
      table,
      migratedDays: 10,
      firstDay: "2020-01-01",
      lastDay: "2020-01-10",
      cleanedDays: 0,
    });
  });

  it("exits 1 when a task fails for good", async () => {
    const doomed = uniqueName("doomed");
    await db.connection.query(
      `CREATE TABLE ${doomed} (id INT PRIMARY KEY, created_at DATETIME, KEY (created_at))`,
    );
    await db.connection.query(`INSERT INTO ${doomed} VALUES (1, '2020-05-05 05:05:05')`);
    expect((await run(["publish", "--message", message(1, [doomed])])).code).toBe(0);
    await db.connection.query(`DROP TABLE ${doomed}`);
    const result = await run(["worker", "--drain"]);
    expect(result.code).toBe(1);
    // Said once on stderr as it happens, and counted in the closing line.
    expect(result.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(new RegExp(`^failed: ${doomed} 2020-05-05 \\(copy\\): table: .*${doomed}`)),
    ]);
    expect(result.stdout).toContain(
      "queue jobs-migration is empty: nothing copied or cleaned; 1 failed for good",
    );
  });

  it("says which service is down and how to start it", async () => {
    const result = await run(["status"], "", { REDIS_URL: "redis://127.0.0.1:1" });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cannot reach Redis .*redis-server/);
  });

  it("checks MySQL the way the runtime connects, TLS settings included", async () => {
    // The test server has TLS off, so asking for TLS makes it unreachable, as it would be for the runtime.
    const result = await run(["status"], "", { MYSQL_TLS_REJECT_UNAUTHORIZED: "false" });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cannot reach MySQL .*HANDSHAKE_NO_SSL_SUPPORT/);
  });

  it("names a bad variable", async () => {
    const result = await run(["status"], "", { ARCHIVER_TIMEZONE: "Nowhere/Land" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("ARCHIVER_TIMEZONE");
  });
});
