import { DuckDBInstance } from "@duckdb/node-api";
import { deleteTestKeys, uniqueName } from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliSandbox, openCliSandbox } from "../cli/testing/cli-sandbox";
import { type CliWorkerProcess, spawnCliWorker, waitFor } from "./testing/cli-worker";

/**
 * A cleanup deleting days by the chunks their copies recorded (1,000 rows
 * each, no pass that reads a day first) is killed (SIGKILL) between chunks,
 * twice: once with Redis intact, once after Redis lost every key of the
 * table and the queue. Publishing the messages again must converge on the
 * exact end state: every row of the migrated days gone from MySQL and held,
 * unchanged, by the warehouse; the recent row untouched.
 */
const DAYS = ["2020-01-01", "2020-01-02"];
const ROWS_PER_DAY = 3_500;

let sandbox: CliSandbox;
const killed: CliWorkerProcess[] = [];
const table = uniqueName("orders");

beforeAll(async () => {
  sandbox = await openCliSandbox("copy-chunks-kill", { WAREHOUSE_DATASET: "archive", TASK_ATTEMPTS: "3" });
  const db = sandbox.db.connection;
  await db.query(
    `CREATE TABLE ${table} (id BIGINT UNSIGNED NOT NULL PRIMARY KEY, created_at DATETIME NOT NULL,
       note VARCHAR(32) NULL, KEY (created_at))`,
  );
  // Keys scattered over the day, so the copy reads them out of key order.
  for (const [index, day] of DAYS.entries()) {
    await db.query(
      `INSERT INTO ${table} SELECT ${index} * 10000000 + (seq * 7919) MOD 1000003, '${day}' + INTERVAL seq SECOND,
         CONCAT('row ', seq) FROM seq_0_to_${ROWS_PER_DAY - 1}`,
    );
  }
  // A recent row the migration never reaches: cleanup must leave it alone.
  await db.query(`INSERT INTO ${table} VALUES (99999999, NOW(), 'recent')`);
});

afterAll(async () => {
  for (const process of killed) process.child.kill("SIGKILL");
  await Promise.all(killed.map((process) => process.exited));
  await sandbox?.close([table]);
});

async function run(args: readonly string[]): Promise<string> {
  const { code, stderr } = await sandbox.run(args, { LOG_LEVEL: "info" });
  expect(code, `archiver ${args.join(" ")} failed; stderr: ${stderr}`).toBe(0);
  return stderr;
}

const migration = JSON.stringify({
  years_to_migrate: 1,
  months_to_migrate: 0,
  source_tables: [table],
  destination_tables: [`archive.${table}`],
  filter_columns: ["created_at"],
  tasks_enqueued_limit: 100,
});
const cleanup = JSON.stringify({ clean_table: table, filter_column: "created_at", dry_run: false });
// The default chunk of 1,000 rows, one day at a time, a pause after each chunk: a kill lands between chunks.
const slowCleanup = { CLEANUP_CONCURRENCY: "1", CLEANUP_PAUSE_MS: "600" };

async function sourceRows(): Promise<string[]> {
  const [rows] = await sandbox.db.connection.query(
    `SELECT CONCAT(id, ' ', DATE_FORMAT(created_at, '%Y-%m-%d %H:%i:%s'), ' ', note) AS r FROM ${table}
     WHERE created_at < '2021-01-01' ORDER BY id`,
  );
  return (rows as { r: string }[]).map((row) => row.r);
}

async function warehouseRows(): Promise<string[]> {
  const instance = await DuckDBInstance.create(sandbox.env.DUCKDB_PATH as string);
  try {
    const connection = await instance.connect();
    const reader = await connection.runAndReadAll(
      `SELECT CONCAT(id, ' ', strftime(created_at, '%Y-%m-%d %H:%M:%S'), ' ', note) FROM archive."${table}" ORDER BY id`,
    );
    connection.closeSync();
    return reader.getRows().map(([row]) => String(row));
  } finally {
    instance.closeSync();
  }
}

/** The kinds of entry the warehouse's durable record holds for the table, with how many of each. */
async function durableEntries(): Promise<[string, number][]> {
  const instance = await DuckDBInstance.create(sandbox.env.DUCKDB_PATH as string);
  try {
    const connection = await instance.connect();
    const reader = await connection.runAndReadAll(
      `SELECT kind, COUNT(DISTINCT day) FROM archive._archiver_days WHERE source_table = '${table}' GROUP BY kind`,
    );
    connection.closeSync();
    return reader.getRows().map(([kind, days]) => [String(kind), Number(days)]);
  } finally {
    instance.closeSync();
  }
}

/** Starts the cleanup and kills it (SIGKILL) once `deleted` more rows are gone, between two chunks. */
async function killPartWay(deleted: number): Promise<void> {
  const before = (await sourceRows()).length;
  const worker = spawnCliWorker(
    ["publish", "--wait", "--message", cleanup],
    { ...sandbox.env, ...slowCleanup },
    sandbox.dir,
  );
  killed.push(worker);
  await waitFor(
    120,
    async () => (await sourceRows()).length <= before - deleted,
    () => `the cleanup deleted too little; stderr: ${worker.stderr()}`,
  );
  worker.child.kill("SIGKILL");
  await worker.exited;
  const left = (await sourceRows()).length;
  expect(left).toBeLessThan(before);
  expect(left).toBeGreaterThan(0);
}

describe("a cleanup by the copies' recorded chunks, killed with SIGKILL", () => {
  it("resumes after each kill, with or without Redis, and ends exactly", async () => {
    await run(["publish", "--wait", "--message", migration]);
    const original = await sourceRows();
    expect(original).toHaveLength(DAYS.length * ROWS_PER_DAY);
    expect(await warehouseRows()).toEqual(original);

    // Killed in the first day, then again in the second after Redis lost everything of the table.
    await killPartWay(1_000);
    await killPartWay(1_000);
    await deleteTestKeys({ prefixes: [sandbox.env.LOCAL_QUEUE_PREFIX as string], tables: [table] });
    await run(["publish", "--wait", "--message", migration]);
    const log = await run(["publish", "--wait", "--message", cleanup]);

    expect(await sourceRows()).toEqual([]);
    expect(await warehouseRows()).toEqual(original);
    const [recent] = await sandbox.db.connection.query(`SELECT COUNT(*) AS n FROM ${table}`);
    expect(Number((recent as { n: number }[])[0]?.n)).toBe(1);
    expect(log).not.toMatch(/refused day/);
    // Deleted by the copies' chunks, never by a plan that read the day: that plan alone leaves a
    // cleanup-started entry in the durable record.
    expect(await durableEntries()).toEqual([["copied", DAYS.length]]);
  }, 300_000);
});
