import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { createDuckDbWarehouse, type DuckDbWarehouse } from "../adapters/duckdb/duckdb-warehouse";
import { createLocalTaskQueue } from "../adapters/local-queue/bullmq-task-queue";
import { createJsonLogger } from "../adapters/logging/json-logger";
import { createMysqlPool, type MysqlPool } from "../adapters/mysql/create-mysql-pool";
import { createMysqlAccountCheck } from "../adapters/mysql/mysql-account-check";
import { createMysqlDayDeleter } from "../adapters/mysql/mysql-day-deleter";
import { createMysqlPartitionedTable } from "../adapters/mysql/mysql-partitioned-table";
import { createMysqlSourceDatabase } from "../adapters/mysql/mysql-source-database";
import { createRedisClient } from "../adapters/redis/create-redis-client";
import { createRedisCleanupState } from "../adapters/redis/redis-cleanup-state";
import { createRedisMigrationLedger } from "../adapters/redis/redis-migration-ledger";
import { createRedisRunHistory } from "../adapters/redis/redis-run-history";
import { loadConfig } from "../config/load-config";
import type { CleanupDeps } from "../domain/cleanup/cleanup-deps";
import type { CleanupSettings } from "../domain/cleanup/cleanup-settings";
import { type CopyDayDeps, copyDay } from "../domain/copy/copy-day";
import type { CalendarDay } from "../model/calendar-day";
import type { DayDeleter } from "../ports/day-deleter";
import type { MigrationLedger } from "../ports/migration-ledger";
import type { SourceDatabase } from "../ports/source-database";
import type { TaskQueue } from "../ports/task-queue";
import { assembleDeps } from "../runtime/assemble-deps";
import { createTestAccount, DOCUMENTED_GRANTS, type TestAccount } from "./archiver-account";
import { createMemoryLoadProbe, type MemoryLoadProbe } from "./fakes/memory-load-probe";
import type { LogLine } from "./test-runtime";
import {
  collectTables,
  createTestDatabase,
  deleteKeysWithPrefix,
  deleteTableRecords,
  type TestDatabase,
  testRedisUrl,
  uniqueName,
} from "./test-services";

export { afterPlanning, failAfter, refusal } from "./day-deleter-faults";
export { dropOneWarehouseRow } from "./warehouse-faults";

/** The "today" copies run on: every test day is in the past. */
const NOW = new Date("2026-06-01T12:00:00Z");

/** A load probe whose figures a test sets (the in-memory one). */
export type FakeLoadProbe = MemoryLoadProbe;

/**
 * Real MariaDB, Redis and DuckDB wired as cleanup sees them in production,
 * with days arranged by the real copy path (copyDay). For the cleanup tests
 * only; every name is unique to the instance.
 */
export interface CleanupFixture {
  readonly db: TestDatabase;
  /** The archiver's pool: an account with the documented cleanup grants on `db` only. */
  readonly pool: MysqlPool;
  /** The archiver's account, to grant or revoke more (`{account}` in a statement stands for it). */
  readonly account: TestAccount;
  readonly source: SourceDatabase;
  readonly deleter: DayDeleter;
  readonly ledger: MigrationLedger;
  readonly queue: TaskQueue;
  readonly warehouse: DuckDbWarehouse;
  readonly redis: Redis;
  readonly prefix: string;
  readonly probe: FakeLoadProbe;
  readonly logs: LogLine[];
  readonly sleeps: number[];
  deps(
    overrides?: Partial<Omit<CleanupDeps, "settings">> & { settings?: Partial<CleanupSettings> },
  ): CleanupDeps;
  /** Copies one day with the real copy task, recording it in the ledger and mig_<table>. */
  copy(table: string, day: CalendarDay, filterColumn?: string): Promise<void>;
  /** What `copy` runs copyDay with. */
  readonly copyDeps: CopyDayDeps;
  query<T = unknown[]>(sql: string, values?: unknown[]): Promise<T[]>;
  /** Ids left in the table, ascending, as strings. */
  ids(table: string): Promise<string[]>;
  /** Ids of the rows of `day` (by created_at), ascending. */
  idsOn(table: string, day: CalendarDay): Promise<string[]>;
  /** A keyed table with status and amount columns, three rows a day, ids 1..3n in time order; returns its name. */
  ordersTable(days: readonly CalendarDay[]): Promise<string>;
  /** A keyed table with `perDay` rows on each day, ids rising with time by `idStep`; returns its name. */
  keyedTable(days: readonly CalendarDay[], perDay: number, options?: { idStep?: number }): Promise<string>;
  /** Every Redis key this fixture's cleanup state wrote, sorted. */
  stateKeys(): Promise<string[]>;
  /** The DuckDB file of `warehouse`. */
  readonly warehousePath: string;
  close(): Promise<void>;
}

export async function createCleanupFixture(): Promise<CleanupFixture> {
  const db = await createTestDatabase("cleanup");
  // Copy and cleanup run as an account with exactly the documented grants, as in production; root only
  // arranges and inspects the data (db.connection).
  const archiver = await createTestAccount(db.name, DOCUMENTED_GRANTS.cleanup(db.name));
  const pool = createMysqlPool({ url: archiver.url, password: undefined });
  const source = createMysqlSourceDatabase(pool);
  const redis = createRedisClient({ url: testRedisUrl, auth: undefined });
  // Every table the ledger writes for, so close() can delete mig_<table> and its copy records.
  const tables = new Set<string>();
  const ledger = collectTables(createRedisMigrationLedger(redis), tables);
  const prefix = uniqueName("cleanup");
  const state = createRedisCleanupState(redis, { prefix });
  const queue = createLocalTaskQueue({ redis: { url: testRedisUrl, auth: undefined }, prefix, attempts: 3 });
  // A file, so a test can damage the copy behind the adapter's back (dropOneWarehouseRow).
  const folder = await mkdtemp(join(tmpdir(), "cleanup-fixture-"));
  const warehousePath = join(folder, "warehouse.duckdb");
  const warehouse = await createDuckDbWarehouse({ path: warehousePath, dataset: "archive" });
  const deleter = createMysqlDayDeleter(pool);
  const partitions = createMysqlPartitionedTable(pool);
  const account = createMysqlAccountCheck(pool);
  const logs: LogLine[] = [];
  const logger = createJsonLogger({ level: "debug", write: (line) => logs.push(JSON.parse(line)) });
  const sleeps: number[] = [];
  const probe = createMemoryLoadProbe();
  // The defaults, as a deployment without CLEANUP_* variables has them, but one planned chunk a delete:
  // these tests count and interrupt planned chunks, and joining them (CLEANUP_CHUNK_TARGET_MS) has tests
  // of its own (clean-day-chunk-target). Tests override what they exercise.
  const settings: CleanupSettings = loadConfig({ CLEANUP_CHUNK_TARGET_MS: "0" }).cleanup;
  // Copy and cleanup as production wires them (assembleDeps): the ledger recovers a record Redis lost
  // from the durable record, and a started cleanup's plan is kept there too.
  const assembled = assembleDeps(
    {
      source,
      account,
      deleter,
      partitions,
      loadProbe: probe,
      storeLedger: ledger,
      storeCleanupState: state,
      queue,
      warehouse: async () => warehouse,
      logger,
      clock: () => NOW,
      runHistory: createRedisRunHistory(redis, { prefix }),
    },
    {
      timeZone: "UTC",
      destinations: { defaultDataset: "archive", allowProject: false },
      copyBatchRows: 1000,
      cleanup: settings,
      warehouseLabel: "the test's DuckDB file",
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    },
  );
  const { sleep: _copiesAtFullSpeed, ...copyDeps } = assembled.copy;
  return {
    db,
    pool,
    account: archiver,
    source,
    deleter,
    ledger,
    queue,
    warehouse,
    redis,
    prefix,
    probe,
    logs,
    sleeps,
    deps(overrides = {}) {
      return { ...assembled.cleanup, ...overrides, settings: { ...settings, ...overrides.settings } };
    },
    copyDeps,
    async copy(table, day, filterColumn = "created_at") {
      await copyDay(copyDeps, { kind: "copy", table, destination: table, filterColumn, day });
    },
    async query<T>(sql: string, values: unknown[] = []) {
      const [rows] = await db.connection.query(sql, values);
      return rows as T[];
    },
    async ids(table) {
      const [rows] = await db.connection.query(`SELECT CAST(id AS CHAR) AS k FROM \`${table}\` ORDER BY id`);
      return (rows as { k: string }[]).map((row) => row.k);
    },
    async idsOn(table, day) {
      const [rows] = await db.connection.query(
        `SELECT CAST(id AS CHAR) AS k FROM \`${table}\` WHERE created_at >= ? AND created_at < ? + INTERVAL 1 DAY ORDER BY id`,
        [day, day],
      );
      return (rows as { k: string }[]).map((row) => row.k);
    },
    async ordersTable(days) {
      const table = uniqueName("orders");
      await db.connection.query(
        `CREATE TABLE \`${table}\` (
           id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
           created_at DATETIME(6) NOT NULL,
           status VARCHAR(16) NULL,
           amount DECIMAL(12,2) NOT NULL,
           KEY (created_at)
         ) ENGINE=InnoDB`,
      );
      for (const day of days) {
        for (let i = 0; i < 3; i++) {
          await db.connection.query(
            `INSERT INTO \`${table}\` (created_at, status, amount) VALUES (?, 'new', ?)`,
            [`${day} 0${i + 1}:00:00.000001`, `${10 + i}.50`],
          );
        }
      }
      return table;
    },
    async keyedTable(days, perDay, options = {}) {
      const table = uniqueName("orders");
      await db.connection.query(
        `CREATE TABLE \`${table}\` (
           id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
           created_at DATETIME(6) NULL,
           qty INT NOT NULL,
           note VARCHAR(64) NULL,
           KEY idx_created_at (created_at)
         )`,
      );
      const step = options.idStep ?? 1;
      let id = step;
      for (const day of days) {
        for (let i = 0; i < perDay; i++) {
          const time = `${day} ${String(i % 24).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}:00.${String(i).padStart(6, "0")}`;
          await db.connection.query(
            `INSERT INTO \`${table}\` (id, created_at, qty, note) VALUES (?, ?, ?, ?)`,
            [id, time, i, `row ${id}`],
          );
          id += step;
        }
      }
      return table;
    },
    async stateKeys() {
      // KEYS answers in hash order, which moves as Redis rehashes: sorted, two snapshots compare as sets.
      return (await redis.keys(`${prefix}:cleanup*`)).concat(await redis.keys(`${prefix}:cleaned*`)).sort();
    },
    warehousePath,
    async close() {
      await Promise.allSettled([queue.close(), warehouse.close(), pool.end()]);
      try {
        // The queue and the cleanup state live under the prefix; the ledger's keys are named by table.
        await deleteKeysWithPrefix(redis, prefix);
        await deleteTableRecords(redis, tables);
      } finally {
        redis.disconnect();
        await Promise.all([db.drop(), archiver.drop(), rm(folder, { recursive: true, force: true })]);
      }
    },
  };
}

/** The cleanup task of `day`, filtered by created_at: the same task the fakes' fixture builds. */
export { cleanTask } from "./memory-fixture";
