import type { DuckDBConnection } from "@duckdb/node-api";
import { InvalidInputError } from "../../errors";
import { type CalendarDay, isCalendarDay } from "../../model/calendar-day";
import type { CopiedDayRecord } from "../../model/copied-day-record";
import type { DatasetRef, DayRecordEntry, DayRecordStore, DurableDayRecord } from "../../ports/day-record";
import * as records from "../warehouse/day-record-rows";
import { type DuckDbTable, qualifiedName, qualifiedSchema, tableColumns } from "./duckdb-catalog";

/**
 * A text value as a DuckDB string literal: standard SQL, where only the quote
 * is special (doubled). Written into the statement rather than bound, as the
 * day predicates are: DuckDB then skips a prepare-and-bind round, which is
 * most of what these one-row statements cost.
 */
function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** The record table of `dataset` in `catalog`. */
function dayRecordTable(catalog: string, dataset: string): DuckDbTable {
  return { catalog, dataset, table: records.DAY_RECORD_TABLE };
}

/** Creates the record table (and its dataset) when missing. */
async function ensureDayRecordTable(connection: DuckDBConnection, table: DuckDbTable): Promise<void> {
  await connection.run(`CREATE SCHEMA IF NOT EXISTS ${qualifiedSchema(table.catalog, table.dataset)}`);
  await connection.run(
    `CREATE TABLE IF NOT EXISTS ${qualifiedName(table)} (
       source_table VARCHAR NOT NULL, day DATE NOT NULL, kind VARCHAR NOT NULL,
       entry VARCHAR NOT NULL, recorded_at TIMESTAMP NOT NULL DEFAULT current_timestamp)`,
  );
}

function dayKey(sourceTable: string, day: string): string {
  return `${sourceTable}\u0000${day}`;
}

/** The `table|day` pairs the record holds entries of; none when it has no table. */
async function readRecordedDays(connection: DuckDBConnection, table: DuckDbTable): Promise<Set<string>> {
  if (!(await hasDayRecordTable(connection, table))) return new Set();
  const reader = await connection.runAndReadAll(
    `SELECT DISTINCT source_table, CAST(day AS VARCHAR) FROM ${qualifiedName(table)}`,
  );
  return new Set(reader.getRows().map(([name, day]) => dayKey(String(name), String(day))));
}

/** The statement that appends one entry, and the row it writes. */
function dayRecordInsert(
  table: DuckDbTable,
  entry: DayRecordEntry,
): { readonly sql: string; readonly row: records.DayRecordRow } {
  const row: records.DayRecordRow = records.toDayRecordRow(entry);
  const values = [row.source_table, row.day, row.kind, row.entry].map(literal);
  return {
    sql: `INSERT INTO ${qualifiedName(table)} (source_table, day, kind, entry) VALUES (${values[0]}, CAST(${values[1]} AS DATE), ${values[2]}, ${values[3]})`,
    row,
  };
}

/** Whether the record table exists (asking creates nothing). */
async function hasDayRecordTable(connection: DuckDBConnection, table: DuckDbTable): Promise<boolean> {
  return (await tableColumns(connection, table)).length > 0;
}

/** The day's entries; the record table must exist (see hasDayRecordTable). */
async function readDayRecord(
  connection: DuckDBConnection,
  table: DuckDbTable,
  sourceTable: string,
  day: CalendarDay,
): Promise<DurableDayRecord> {
  if (!isCalendarDay(day))
    throw new InvalidInputError("day", `${JSON.stringify(day)} is not a YYYY-MM-DD day`);
  const reader = await connection.runAndReadAll(
    `SELECT kind, entry FROM ${qualifiedName(table)} WHERE source_table = ${literal(sourceTable)} AND day = DATE '${day}'`,
  );
  const rows = reader.getRows().map(([kind, entry]) => ({
    kind: String(kind) as records.DayRecordRow["kind"],
    entry: String(entry),
  }));
  return records.foldDayRecord(rows, `${table.dataset}.${records.DAY_RECORD_TABLE} ${sourceTable} ${day}`);
}

async function readRecordedCopies(
  connection: DuckDBConnection,
  table: DuckDbTable,
  sourceTable: string,
): Promise<CopiedDayRecord[]> {
  if (!(await hasDayRecordTable(connection, table))) return [];
  const reader = await connection.runAndReadAll(
    `SELECT entry FROM ${qualifiedName(table)} WHERE source_table = $1 AND kind = 'copied'`,
    [sourceTable],
  );
  return records.latestCopies(
    reader.getRows().map(([entry]) => ({ entry: String(entry) })),
    `${table.dataset}.${records.DAY_RECORD_TABLE} ${sourceTable}`,
  );
}

async function readRecordedTables(connection: DuckDBConnection, table: DuckDbTable): Promise<string[]> {
  if (!(await hasDayRecordTable(connection, table))) return [];
  const reader = await connection.runAndReadAll(
    `SELECT DISTINCT source_table FROM ${qualifiedName(table)} WHERE kind = 'copied' ORDER BY source_table`,
  );
  return reader.getRows().map(([name]) => String(name));
}

/** What the record methods borrow from the warehouse that owns them. */
export interface DuckDbDayRecordsContext {
  readonly catalog: string;
  /** Runs a public operation of the warehouse (refused once closed, errors mapped). */
  readonly operation: <T>(action: string, work: () => Promise<T>) => Promise<T>;
  readonly withConnection: <T>(work: (connection: DuckDBConnection) => Promise<T>) => Promise<T>;
  /** Runs schema changes one at a time. */
  readonly ddl: (work: () => Promise<void>) => Promise<void>;
  /** The database's memo (SharedDatabase.memo), shared by every warehouse on the file. */
  readonly memo: Map<string, unknown>;
}

/**
 * Per dataset: the `table|day` pairs the record may hold entries of (none when
 * it has no table). A pair is added when its entry's statement is made, before it
 * commits, so it may name a day whose entry rolled back: asking about such a
 * day costs a statement and finds nothing, as without the set.
 */
type RecordedDays = Map<string, Promise<Set<string>>>;

export interface DuckDbDayRecords extends DayRecordStore {
  /**
   * Makes sure `dataset` has its record table, then answers a function that
   * turns an entry into the statement appending it, for the caller to run in
   * its open transaction (Warehouse.replaceDay: with the COMMIT, in one call).
   */
  insertFor(dataset: DatasetRef): Promise<(entry: DayRecordEntry) => string>;
}

/**
 * The durable day record of a DuckDB warehouse: `_archiver_days` in each
 * dataset's schema. One process holds the file, so the days it holds entries
 * of are read once per dataset and then kept up to date in memory: asking
 * about a day it has none of (every first copy of a day) costs no statement.
 */
export function createDuckDbDayRecords(context: DuckDbDayRecordsContext): DuckDbDayRecords {
  const { catalog, operation, withConnection } = context;
  const recorded = (context.memo.get("recordedDays") as RecordedDays | undefined) ?? new Map();
  context.memo.set("recordedDays", recorded);
  const at = (dataset: DatasetRef) => ({
    table: dayRecordTable(catalog, dataset.dataset),
    key: dataset.dataset.toLowerCase(),
  });
  const daysOf = (table: DuckDbTable, key: string): Promise<Set<string>> => {
    let days = recorded.get(key);
    if (!days) {
      days = withConnection((connection) => readRecordedDays(connection, table));
      days.catch(() => recorded.delete(key));
      recorded.set(key, days);
    }
    return days;
  };
  /** Datasets whose record table this warehouse has made sure of. */
  const made = new Set<string>();
  const insertFor = async (dataset: DatasetRef) => {
    const { table, key } = at(dataset);
    const days = await daysOf(table, key);
    if (!made.has(key)) {
      await context.ddl(() => withConnection((connection) => ensureDayRecordTable(connection, table)));
      made.add(key);
    }
    return (entry: DayRecordEntry) => {
      const { sql, row } = dayRecordInsert(table, entry);
      days.add(dayKey(row.source_table, row.day));
      return sql;
    };
  };
  return {
    insertFor,
    recordDay(dataset, entry) {
      return operation("recordDay", async () => {
        // The statement commits on its own (DuckDB's autocommit).
        const insert = (await insertFor(dataset))(entry);
        await withConnection((connection) => connection.run(insert));
      });
    },
    dayRecord(dataset, sourceTable, day) {
      const { table, key } = at(dataset);
      return operation("dayRecord", async () => {
        if (!(await daysOf(table, key)).has(dayKey(sourceTable, day))) return {};
        return withConnection((connection) => readDayRecord(connection, table, sourceTable, day));
      });
    },
    recordedCopies(dataset, sourceTable) {
      const { table } = at(dataset);
      return operation("recordedCopies", () =>
        withConnection((connection) => readRecordedCopies(connection, table, sourceTable)),
      );
    },
    recordedTables(dataset) {
      const { table } = at(dataset);
      return operation("recordedTables", () =>
        withConnection((connection) => readRecordedTables(connection, table)),
      );
    },
  };
}
