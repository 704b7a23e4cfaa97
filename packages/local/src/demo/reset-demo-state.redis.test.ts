import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { loadConfig } from "@table-archiver/core/config";
import { createLocalTaskQueue } from "@table-archiver/core/local-queue";
import { cleanupKeys, copiedDaysKey, createRedisClient, migratedDaysKey } from "@table-archiver/core/redis";
import { deleteTestKeys, testRedisUrl, uniqueName } from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoOwnerKey, demoTableState, resetDemoState } from "./reset-demo-state";

// Every name is this file's own, so the real demo's records (and anyone else's) are never touched.
const prefix = uniqueName("demo");
const tables: string[] = [];
const redis = createRedisClient({ url: testRedisUrl, auth: undefined });
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "demo-reset-"));
});

afterAll(async () => {
  await deleteTestKeys({ prefixes: [prefix], tables });
  if (tables.length > 0) await redis.del(...tables.map(demoOwnerKey));
  redis.disconnect();
  await rm(dir, { recursive: true, force: true });
});

/** A fresh table name, a demo aimed at it, and a warehouse file of its own. */
function demo() {
  const table = uniqueName("orders");
  tables.push(table, `${table}_2`);
  const duckdbPath = join(dir, `${table}.duckdb`);
  const config = loadConfig({ REDIS_URL: testRedisUrl, LOCAL_QUEUE_PREFIX: prefix, DUCKDB_PATH: duckdbPath });
  return { table, destination: `${table}_archive`, config, duckdbPath };
}

const copyTask = (table: string, day: string) => ({
  kind: "copy" as const,
  table,
  destination: `${table}_archive`,
  filterColumn: "created_at",
  day,
});

async function enqueue(table: string, days: string[]) {
  const queue = createLocalTaskQueue({ redis: { url: testRedisUrl, auth: undefined }, prefix, attempts: 1 });
  try {
    await queue.enqueue(days.map((day) => copyTask(table, day)));
  } finally {
    await queue.close();
  }
}

/** Every record an earlier run can leave of `table`, as the archiver names them. */
async function writeRecords(table: string) {
  const cleanup = (day: string) => cleanupKeys("archiver", table, day);
  await redis.sadd(migratedDaysKey(table), "2024-01-01", "2024-01-02");
  await redis.hset(copiedDaysKey(table), "2024-01-01", "{}", "2024-01-02", "{}");
  await redis.hset(cleanup("2024-01-01").day, "status", "done");
  await redis.hset(cleanup("2024-01-02").day, "status", "deleting");
  await redis.set(cleanup("2024-01-02").lease, "a worker", "PX", 60_000);
  await redis.sadd(cleanup("2024-01-01").cleaned, "2024-01-01");
}

/** Opens the DuckDB file for one piece of work and closes it again, as the demo needs it free. */
async function inDuckDb<T>(path: string, work: (run: (sql: string) => Promise<string[][]>) => Promise<T>) {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    return await work(async (sql) =>
      (await connection.runAndReadAll(sql)).getRows().map((row) => row.map(String)),
    );
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

const createWarehouseTable = (path: string, table: string) =>
  inDuckDb(path, async (run) => {
    await run("CREATE SCHEMA IF NOT EXISTS archive");
    await run(`CREATE TABLE archive."${table}" AS SELECT 1 AS id`);
  });

const warehouseTables = (path: string) =>
  inDuckDb(path, async (run) =>
    (await run("SELECT table_name FROM duckdb_tables() ORDER BY 1")).map(([name]) => name),
  );

describe("resetDemoState", () => {
  it("refuses, deleting nothing, when Redis holds records of a table named like the demo's that it did not write", async () => {
    const { table, destination, config } = demo();
    await writeRecords(table);
    const before = await demoTableState(redis, table, prefix);
    expect(before.keys).toHaveLength(6);
    await expect(resetDemoState(config, { table, destination })).rejects.toThrow(/did not write/);
    expect(await demoTableState(redis, table, prefix)).toEqual(before);
    expect(await redis.exists(demoOwnerKey(table))).toBe(0);
  });

  it("resets its own state, again on the next run", async () => {
    const { table, destination, config } = demo();
    await resetDemoState(config, { table, destination });
    await redis.sadd(migratedDaysKey(table), "2024-01-01");
    await resetDemoState(config, { table, destination });
    expect(await redis.exists(migratedDaysKey(table))).toBe(0);
    expect(await redis.exists(demoOwnerKey(table))).toBe(1);
  });

  it("clears every record of its table, the per-day cleanup state, leases and queued tasks included, and no other table's", async () => {
    const { table, destination, config } = demo();
    await resetDemoState(config, { table, destination });
    // What a run and a cleanup that was interrupted leave behind; and the same for a table whose name starts alike.
    await writeRecords(table);
    await enqueue(table, ["2024-01-03", "2024-01-04"]);
    await writeRecords(`${table}_2`);
    const other = await demoTableState(redis, `${table}_2`, prefix);
    expect((await demoTableState(redis, table, prefix)).jobIds).toHaveLength(2);

    await resetDemoState(config, { table, destination });

    expect(await demoTableState(redis, table, prefix)).toEqual({ keys: [], jobIds: [] });
    expect(await redis.keys(`*${table}`)).toEqual([demoOwnerKey(table)]);
    expect(await redis.keys(`*${table}:*`)).toEqual([]);
    expect(await redis.keys(`*|${table}|*`)).toEqual([]);
    expect(await demoTableState(redis, `${table}_2`, prefix)).toEqual(other);
  });

  it("refuses while the queue holds tasks of other tables, which the demo would otherwise run", async () => {
    const { table, destination, config } = demo();
    await enqueue(`${table}_2`, ["2024-02-01"]);
    try {
      await expect(resetDemoState(config, { table, destination })).rejects.toThrow(
        /holds 1 tasks of other tables/,
      );
      expect((await demoTableState(redis, `${table}_2`, prefix)).jobIds).toHaveLength(1);
    } finally {
      await deleteTestKeys({ prefixes: [prefix] });
    }
  });

  it("drops its table from the warehouse file and leaves the file's other tables", async () => {
    const { table, destination, config, duckdbPath } = demo();
    await resetDemoState(config, { table, destination });
    await createWarehouseTable(duckdbPath, "someone_elses");
    await createWarehouseTable(duckdbPath, destination);
    expect(await warehouseTables(duckdbPath)).toEqual([destination, "someone_elses"].sort());
    await resetDemoState(config, { table, destination });
    expect(await warehouseTables(duckdbPath)).toEqual(["someone_elses"]);
  });

  it("refuses, dropping nothing, when the warehouse holds its table but Redis does not say the demo wrote it", async () => {
    const { table, destination, config, duckdbPath } = demo();
    await createWarehouseTable(duckdbPath, destination);
    await expect(resetDemoState(config, { table, destination })).rejects.toThrow(
      /already holds archive\..*which the demo did not write/,
    );
    expect(await warehouseTables(duckdbPath)).toEqual([destination]);
    expect(await redis.exists(demoOwnerKey(table))).toBe(0);
  });
});
