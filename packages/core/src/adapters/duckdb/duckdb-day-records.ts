import type { DuckDBConnection } from "@duckdb/node-api";
import type { CalendarDay } from "../../domain/days/calendar-day";
import type { DayRecordEntry, DurableDayRecord } from "../../ports/day-record";
import type { CopiedDayRecord } from "../../ports/migration-ledger";
import * as records from "../warehouse/day-record-rows";
import { type DuckDbTable, qualifiedName, qualifiedSchema, tableColumns } from "./duckdb-catalog";

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
  await connection.run(
    `INSERT INTO ${qualifiedName(table)} (source_table, day, kind, entry) VALUES ($1, CAST($2 AS DATE), $3, $4)`,
    [row.source_table, row.day, row.kind, row.entry],
  );
}

export async function readDayRecord(
  connection: DuckDBConnection,
  table: DuckDbTable,
  sourceTable: string,
  day: CalendarDay,
): Promise<DurableDayRecord> {
  if ((await tableColumns(connection, table)).length === 0) return {};
  const reader = await connection.runAndReadAll(
    `SELECT kind, entry FROM ${qualifiedName(table)} WHERE source_table = $1 AND day = CAST($2 AS DATE)`,
    [sourceTable, day],
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
