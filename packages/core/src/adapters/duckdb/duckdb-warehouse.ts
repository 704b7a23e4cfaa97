import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { type DayFigures, emptyDayFigures, emptyDaysFigures } from "../../model/day-figures";
import type { Destination } from "../../model/destination";
import type { WarehouseDay } from "../../model/warehouse-day";
import type { Warehouse } from "../../ports/warehouse";
import { dayFiguresOn, daysFiguresOn } from "./day-figures";
import { dayKeyPageOn, keyPages } from "./day-key-pages";
import {
  type DuckDbDay,
  type DuckDbTable,
  ensureTableShape,
  qualifiedName,
  qualifiedSchema,
  requireFilterColumn,
  tableColumns,
  type WarehouseColumn,
} from "./duckdb-catalog";
import { createConnectionPool } from "./duckdb-connection-pool";
import { createDuckDbDayRecords } from "./duckdb-day-records";
import { DuckDbFileInUseError, isDuckDbLockError, withDuckDbErrors } from "./duckdb-errors";
import { createDuckDbRunRecords } from "./duckdb-run-records";
import { replaceDayInTransaction } from "./replace-day";
import { type DuckDbSettings, openSharedDatabase, type SharedDatabase } from "./shared-database";

export interface DuckDbWarehouseOptions extends DuckDbSettings {
  /** Database file, or ":memory:". The parent folder of a file is created. */
  readonly path: string;
  /** The default dataset (a DuckDB schema); created on open so an empty warehouse can be inspected. */
  readonly dataset: string;
  /**
   * How long to wait for a file another process holds (a CLI command that
   * opened it a moment earlier) before giving up with DuckDbFileInUseError.
   * Default DUCKDB_LOCK_WAIT_MS.
   */
  readonly lockWaitMs?: number;
}

/** Long enough for another short command (a cleanup dry run, `status --rebuild`) to finish with the file. */
const DUCKDB_LOCK_WAIT_MS = 5_000;

/**
 * Opens the shared database, waiting up to `waitMs` while another process
 * holds the file (trying again every 100-500 ms); then DuckDbFileInUseError.
 */
async function openWaitingForLock(options: DuckDbWarehouseOptions): Promise<SharedDatabase> {
  const deadline = performance.now() + (options.lockWaitMs ?? DUCKDB_LOCK_WAIT_MS);
  for (let pause = 100; ; pause = Math.min(pause * 2, 500)) {
    try {
      return await openSharedDatabase(options.path, options);
    } catch (error) {
      if (!isDuckDbLockError(error)) throw error;
      if (performance.now() + pause > deadline) throw new DuckDbFileInUseError(options.path, error);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/**
 * Whether `table` (or its dataset) does not exist. The reads answer an absent
 * table as an empty one (no rows, no keys) and never create it.
 */
async function isAbsent(connection: DuckDBConnection, table: DuckDbTable): Promise<boolean> {
  return (await tableColumns(connection, table)).length === 0;
}

/** The DuckDB warehouse, plus a way for test code to query the database it writes. */
export interface DuckDbWarehouse extends Warehouse {
  /**
   * Runs `work` as one of the warehouse's operations (refused once closed,
   * awaited by close(), DuckDB errors mapped, `action` naming it in them) on a
   * connection of its pool, with the catalog its tables live in. Only tests use
   * it, to read a day back (testing/read-day.ts): an in-memory warehouse shares
   * its database with nobody else, so they must come through the warehouse.
   */
  withConnection<T>(
    action: string,
    work: (connection: DuckDBConnection, catalog: string) => Promise<T>,
  ): Promise<T>;
}

/** DDL on different tables may still touch the same schema entry, so all of it runs one at a time. */
const DDL_KEY = "\u0000ddl";

/**
 * Opens (or creates) a DuckDB warehouse. Warehouses naming the same file share
 * one DuckDBInstance (see shared-database.ts); each operation runs on a
 * connection of its own from the warehouse's connection pool (see
 * duckdb-connection-pool.ts: a failed operation's connection is closed, so no
 * half-ended transaction is ever reused). Replaces of one day run one at a time: two
 * transactions replacing the same day would otherwise both commit, since
 * DuckDB sees no conflict between their inserts, and the day would hold two
 * copies; replaces of different days run side by side. Schema changes run one
 * at a time, and a shape already ensured is not checked again. A
 * DuckDB conflict that still happens surfaces as TransientError; a file
 * another process holds is waited for a few seconds, then refused with
 * DuckDbFileInUseError (a TransientError) naming the file and the holder.
 */
export async function createDuckDbWarehouse(options: DuckDbWarehouseOptions): Promise<DuckDbWarehouse> {
  if (!options.path.startsWith(":memory:")) await mkdir(dirname(options.path), { recursive: true });
  const database = await withDuckDbErrors("open", () => openWaitingForLock(options));
  const { instance, locks } = database;
  const inFlight = new Set<Promise<unknown>>();
  let closed = false;

  const pool = createConnectionPool(instance);
  const { withConnection } = pool;

  /** Runs a public operation: refused once closed, awaited by close(), DuckDB errors mapped. */
  function operation<T>(action: string, work: () => Promise<T>): Promise<T> {
    if (closed) return Promise.reject(new Error(`DuckDB warehouse ${options.path} is closed`));
    const running = withDuckDbErrors(action, work);
    inFlight.add(running);
    const forget = () => inFlight.delete(running);
    running.then(forget, forget);
    return running;
  }

  let setup: { catalog: string; json: boolean };
  try {
    setup = await withDuckDbErrors("open", () =>
      locks.run(DDL_KEY, () =>
        withConnection(async (connection) => {
          const reader = await connection.runAndReadAll(
            `SELECT current_database(),
                  (SELECT count(*) FROM duckdb_extensions() WHERE extension_name = 'json' AND loaded) > 0`,
          );
          const [name, hasJson] = reader.getRows()[0] ?? [];
          await connection.run(
            `CREATE SCHEMA IF NOT EXISTS ${qualifiedSchema(String(name), options.dataset)}`,
          );
          return { catalog: String(name), json: hasJson === true };
        }),
      ),
    );
  } catch (error) {
    pool.close();
    database.release();
    throw error;
  }
  const { catalog, json } = setup;
  const tableOf = (destination: Destination): DuckDbTable => ({
    catalog,
    dataset: destination.dataset,
    table: destination.table,
  });
  const dayOf = (at: WarehouseDay): DuckDbDay => ({ ...at, destination: tableOf(at.destination) });
  const tableKey = (destination: Destination) => `${destination.dataset}.${destination.table}`.toLowerCase();
  // Per table, the source shape this warehouse last made it match and the columns it then had: a copy
  // of the same schema skips the catalog round trips.
  const ensured = new Map<string, { shape: string; columns: readonly WarehouseColumn[] }>();

  const dayRecords = createDuckDbDayRecords({
    catalog,
    operation,
    withConnection,
    ddl: (work) => locks.run(DDL_KEY, work),
    memo: database.memo,
  });
  const runRecords = createDuckDbRunRecords({
    catalog,
    operation,
    withConnection,
    ddl: (work) => locks.run(DDL_KEY, work),
  });

  return {
    async ensureTable(destination, schema, filterColumn) {
      requireFilterColumn(schema, filterColumn);
      const shape = JSON.stringify(schema.columns.map((c) => [c.name, c.columnType, c.logicalType]));
      if (ensured.get(tableKey(destination))?.shape === shape) return;
      await operation("ensureTable", () =>
        locks.run(DDL_KEY, () =>
          withConnection(async (connection) => {
            await ensureTableShape(connection, tableOf(destination), schema, { json });
            ensured.set(tableKey(destination), {
              shape,
              columns: await tableColumns(connection, tableOf(destination)),
            });
          }),
        ),
      );
    },

    async replaceDay(at, schema, batches, keyColumn, record) {
      requireFilterColumn(schema, at.filterColumn);
      const columns = ensured.get(tableKey(at.destination))?.columns;
      // The day's record entry goes into the replace's own transaction: both commit, or neither.
      const insert = record ? await dayRecords.insertFor(at.destination) : undefined;
      const withCommit =
        record && insert
          ? async (figures: DayFigures) => insert(await record({ rowsWritten: figures.rows, figures }))
          : undefined;
      const target = { at: dayOf(at), schema, columns, keyColumn, withCommit };
      // One replace per day at a time: DuckDB does not see two transactions inserting the same day
      // as a conflict, so this lock is what keeps a duplicate task from leaving two copies. Different
      // days touch disjoint rows and run side by side.
      const figures = await operation("replaceDay", () =>
        locks.run(`${tableKey(at.destination)}|${at.day}`, () =>
          withConnection((connection) => replaceDayInTransaction(connection, target, batches)),
        ),
      );
      return { rowsWritten: figures.rows, figures };
    },

    dayFigures(at, keyColumn) {
      return operation("dayFigures", () =>
        withConnection(async (connection) => {
          const day = dayOf(at);
          if (await isAbsent(connection, day.destination)) return emptyDayFigures(keyColumn);
          return dayFiguresOn(connection, day, keyColumn);
        }),
      );
    },

    daysFigures(at, keyColumn) {
      return operation("daysFigures", () =>
        withConnection(async (connection) => {
          const days = { ...at, destination: tableOf(at.destination) };
          if (await isAbsent(connection, days.destination)) return emptyDaysFigures(at.days, keyColumn);
          return daysFiguresOn(connection, days, keyColumn);
        }),
      );
    },

    dayKeys(at, keyColumn, pageKeys) {
      return keyPages(pageKeys, (after) =>
        operation("dayKeys", () =>
          withConnection(async (connection) => {
            const day = dayOf(at);
            // Absent at the first page lists none; a table gone after it fails the listing, not ends it.
            if (after === undefined && (await isAbsent(connection, day.destination))) return [];
            return dayKeyPageOn(connection, day, keyColumn, after, pageKeys);
          }),
        ),
      );
    },

    hasTable(destination) {
      return operation("hasTable", () =>
        withConnection(async (connection) => !(await isAbsent(connection, tableOf(destination)))),
      );
    },

    countRows(destination) {
      return operation("countRows", () =>
        withConnection(async (connection) => {
          const table = tableOf(destination);
          if (await isAbsent(connection, table)) return 0;
          const reader = await connection.runAndReadAll(`SELECT COUNT(*) FROM ${qualifiedName(table)}`);
          return Number(reader.getRows()[0]?.[0]);
        }),
      );
    },

    ...dayRecords,
    ...runRecords,

    withConnection(action, work) {
      return operation(action, () => pool.withConnection((connection) => work(connection, catalog)));
    },

    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled(inFlight);
      pool.close();
      database.release();
    },
  };
}
