import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import {
  createTestDatabase,
  deleteTestKeys,
  type TestDatabase,
  testRedisUrl,
  uniqueName,
} from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliWorkerProcess, spawnCliWorker, waitFor } from "./testing/cli-worker";

/**
 * Redis comes back empty in the middle of a cleanup, as after a Memorystore
 * BASIC-tier restart: the cleanup's CLI process is killed (SIGKILL) after some
 * of its chunks committed, and every Redis key of the table and the queue is
 * deleted (the test shares Redis with others, so it deletes only its own
 * keys instead of flushing). The operator then publishes the same migration
 * and cleanup messages again, through the CLI. The end state must be exact:
 * every row of the migrated days gone from MySQL and held, unchanged, by the
 * warehouse, the other rows untouched, and `mig_<table>` whole again.
 */
const DAYS = ["2020-01-01", "2020-01-02"];
const ROWS_PER_DAY = 12;

let db: TestDatabase;
let dir: string;
const processes: CliWorkerProcess[] = [];
const table = uniqueName("orders");
const prefix = uniqueName("redisloss");

beforeAll(async () => {
  db = await createTestDatabase();
  await db.connection.query(
    `CREATE TABLE ${table} (id INT AUTO_INCREMENT PRIMARY KEY, created_at DATETIME NOT NULL,
       note VARCHAR(32) NULL, KEY (created_at))`,
  );
  const values = DAYS.flatMap((day) =>
    Array.from(
      { length: ROWS_PER_DAY },
      (_, i) => `('${day} ${String(i).padStart(2, "0")}:00:00', 'row ${i}')`,
    ),
  );
  // A recent row the migration never reaches: cleanup must leave it alone.
  values.push("(NOW(), 'recent')");
  await db.connection.query(`INSERT INTO ${table} (created_at, note) VALUES ${values.join(", ")}`);
  dir = await mkdtemp(join(tmpdir(), "redis-loss-"));
});

afterAll(async () => {
  for (const process of processes) process.child.kill("SIGKILL");
  await Promise.all(processes.map((process) => process.exited));
  await deleteTestKeys({ prefixes: [prefix], tables: [table] });
  if (dir) await rm(dir, { recursive: true, force: true });
  await db?.drop();
});

function cli(args: readonly string[], env: Readonly<Record<string, string>> = {}): CliWorkerProcess {
  const process = spawnCliWorker(
    args,
    {
      MYSQL_URL: db.url,
      REDIS_URL: testRedisUrl,
      WAREHOUSE: "duckdb",
      DUCKDB_PATH: join(dir, "warehouse.duckdb"),
      WAREHOUSE_DATASET: "archive",
      QUEUE: "local",
      LOCAL_QUEUE_PREFIX: prefix,
      LOG_LEVEL: "error",
      ...env,
    },
    dir,
  );
  processes.push(process);
  return process;
}

async function run(args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<string> {
  const process = cli(args, env);
  const { code } = await process.exited;
  expect(code, `archiver ${args.join(" ")} failed; stderr: ${process.stderr()}`).toBe(0);
  return process.stdout();
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
// Chunks of 3 rows, one day at a time, a pause after each: the kill lands between chunks.
const slowCleanup = { CLEANUP_CHUNK_ROWS: "3", CLEANUP_CONCURRENCY: "1", CLEANUP_PAUSE_MS: "700" };

async function sourceRows(): Promise<{ id: number; created_at: string; note: string }[]> {
  const [rows] = await db.connection.query(
    `SELECT id, DATE_FORMAT(created_at, '%Y-%m-%d %H:%i:%s') AS created_at, note FROM ${table}
     WHERE created_at < '2021-01-01' ORDER BY id`,
  );
  return rows as { id: number; created_at: string; note: string }[];
}

async function warehouseRows(): Promise<{ id: number; created_at: string; note: string }[]> {
  const instance = await DuckDBInstance.create(join(dir, "warehouse.duckdb"));
  try {
    const connection = await instance.connect();
    const reader = await connection.runAndReadAll(
      `SELECT id, strftime(created_at, '%Y-%m-%d %H:%M:%S'), note FROM archive."${table}" ORDER BY id`,
    );
    connection.closeSync();
    return reader.getRows().map(([id, createdAt, note]) => ({
      id: Number(id),
      created_at: String(createdAt),
      note: String(note),
    }));
  } finally {
    instance.closeSync();
  }
}

describe("Redis losing its data in the middle of a cleanup", () => {
  it("re-publishing the same migration and cleanup messages converges to the exact end state", async () => {
    await run(["publish", "--wait", "--message", migration]);
    const original = await sourceRows();
    expect(original).toHaveLength(DAYS.length * ROWS_PER_DAY);

    const first = cli(["publish", "--wait", "--message", cleanup], slowCleanup);
    await waitFor(
      60,
      async () => (await sourceRows()).length <= original.length - 6,
      () => `the cleanup deleted nothing; stderr: ${first.stderr()}`,
    );
    first.child.kill("SIGKILL");
    await first.exited;
    const left = (await sourceRows()).length;
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(original.length);
    await deleteTestKeys({ prefixes: [prefix], tables: [table] });

    await run(["publish", "--wait", "--message", migration]);
    await run(["publish", "--wait", "--message", cleanup], { CLEANUP_CHUNK_ROWS: "3" });

    expect(await sourceRows()).toEqual([]);
    expect(await warehouseRows()).toEqual(original);
    const [recent] = await db.connection.query(`SELECT COUNT(*) AS n FROM ${table}`);
    expect(Number((recent as { n: number }[])[0]?.n)).toBe(1);
    const status = JSON.parse(await run(["status", "--json"])) as {
      tables: {
        table: string;
        migratedDays: number;
        firstDay: string;
        lastDay: string;
        cleanedDays: number;
      }[];
    };
    const mine = status.tables.find((entry) => entry.table === table);
    expect(mine).toMatchObject({ migratedDays: 2, firstDay: DAYS[0], lastDay: DAYS[1], cleanedDays: 2 });

    // Redis loses its data once more, after the cleanup: the days have no rows left, so no migration
    // message brings them back. `status --rebuild` does, from the durable record; a cleanup message
    // published again then finds them clean.
    await deleteTestKeys({ prefixes: [prefix], tables: [table] });
    const lost = JSON.parse(await run(["status", "--json"])) as typeof status;
    expect(lost.tables.find((entry) => entry.table === table)).toBeUndefined();
    const rebuild = cli(["status", "--rebuild", "--json"]);
    expect((await rebuild.exited).code, rebuild.stderr()).toBe(0);
    expect(rebuild.stderr()).toMatch(
      new RegExp(`wrote back ${table} 2 days from the durable record of dataset archive`),
    );
    const rebuilt = JSON.parse(rebuild.stdout()) as typeof status;
    expect(rebuilt.tables.find((entry) => entry.table === table)).toMatchObject({
      migratedDays: 2,
      firstDay: DAYS[0],
      lastDay: DAYS[1],
    });
    await run(["publish", "--wait", "--message", cleanup]);
    const settled = JSON.parse(await run(["status", "--json"])) as typeof status;
    expect(settled.tables.find((entry) => entry.table === table)).toMatchObject({
      migratedDays: 2,
      cleanedDays: 2,
    });
    expect(await warehouseRows()).toEqual(original);
  }, 180_000);
});
