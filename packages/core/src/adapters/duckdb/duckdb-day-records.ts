import type { DuckDBConnection } from "@duckdb/node-api";
import { type CalendarDay, isCalendarDay } from "../../domain/days/calendar-day";
import { InvalidInputError } from "../../errors";
import type { DatasetRef, DayRecordEntry, DayRecordStore, DurableDayRecord } from "../../ports/day-record";
import type { CopiedDayRecord } from "../../ports/migration-ledger";
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
export function dayRecordTable(catalog: string, dataset: string): DuckDbTable {
  return { catalog, dataset, table: records.DAY_RECORD_TABLE };
}

/** Creates the record table (and its dataset) when missing. */
export async function ensureDayRecordTable(connection: DuckDBConnection, table: DuckDbTable): Promise<void> {
  await connection.run(`CREATE SCHEMA IF NOT EXISTS ${qualifiedSchema(table.catalog, table.dataset)}`);
  await connection.run(
    `CREATE TABLE IF NOT EXISTS ${qualifiedName(table)} (
       source_table VARCHAR NOT NULL, day DATE NOT NULL, kind VARCHAR NOT NULL,
       entry VARCHAR NOT NULL, recorded_at TIMESTAMP NOT NULL DEFAULT current_timestamp)`,
  );
}

/** Appends one entry; the statement commits on its own (DuckDB's autocommit). */
export async function appendDayRecord(
  connection: DuckDBConnection,
  table: DuckDbTable,
  entry: DayRecordEntry,
): Promise<void> {
  const row: records.DayRecordRow = records.toDayRecordRow(entry);
  const values = [row.source_table, row.day, row.kind, row.entry].map(literal);
  await connection.run(
    `INSERT INTO ${qualifiedName(table)} (source_table, day, kind, entry) VALUES (${values[0]}, CAST(${values[1]} AS DATE), ${values[2]}, ${values[3]})`,
  );
}

/** Whether the record table exists (asking creates nothing). */
export async function hasDayRecordTable(connection: DuckDBConnection, table: DuckDbTable): Promise<boolean> {
  return (await tableColumns(connection, table)).length > 0;
}

/** The day's entries; the record table must exist (see hasDayRecordTable). */
export async function readDayRecord(
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

export async function readRecordedCopies(
  connection: DuckDBConnection,
  table: DuckDbTable,
  sourceTable: string,
): Promise<CopiedDayRecord[]> {
  if ((await tableColumns(connection, table)).length === 0) return [];
  const reader = await connection.runAndReadAll(
    `SELECT entry FROM ${qualifiedName(table)} WHERE source_table = $1 AND kind = 'copied'`,
    [sourceTable],
  );
  return records.latestCopies(
    reader.getRows().map(([entry]) => ({ entry: String(entry) })),
    `${table.dataset}.${records.DAY_RECORD_TABLE} ${sourceTable}`,
  );
}

export async function readRecordedTables(
  connection: DuckDBConnection,
  table: DuckDbTable,
): Promise<string[]> {
  if ((await tableColumns(connection, table)).length === 0) return [];
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
}

/**
 * The durable day record of a DuckDB warehouse: `_archiver_days` in each
 * dataset's schema. One process holds the file, so a record table seen (or
 * made) here stays, and is not looked up again.
 */
export function createDuckDbDayRecords(context: DuckDbDayRecordsContext): DayRecordStore {
  const { catalog, operation, withConnection } = context;
  const known = new Set<string>();
  const at = (dataset: DatasetRef) => ({
    table: dayRecordTable(catalog, dataset.dataset),
    key: dataset.dataset.toLowerCase(),
  });
  return {
    recordDay(dataset, entry) {
      const { table, key } = at(dataset);
      return operation("recordDay", async () => {
        if (!known.has(key)) {
          await context.ddl(() => withConnection((connection) => ensureDayRecordTable(connection, table)));
          known.add(key);
        }
        await withConnection((connection) => appendDayRecord(connection, table, entry));
      });
    },
    dayRecord(dataset, sourceTable, day) {
      const { table, key } = at(dataset);
      return operation("dayRecord", () =>
        withConnection(async (connection) => {
          if (!known.has(key)) {
            if (!(await hasDayRecordTable(connection, table))) return {};
            known.add(key);
          }
          return readDayRecord(connection, table, sourceTable, day);
        }),
      );
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
