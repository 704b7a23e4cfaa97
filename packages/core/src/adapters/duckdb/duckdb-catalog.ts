import { type DuckDBConnection, quotedIdentifier } from "@duckdb/node-api";
import { InvalidInputError, RefusalError } from "../../errors";
import { addDays, type CalendarDay, isCalendarDay, startOfDay } from "../../model/calendar-day";
import { type Destination, formatDestination } from "../../model/destination";
import type { TableSchema } from "../../model/table-schema";
import type { WarehouseDay, WarehouseDays } from "../../model/warehouse-day";
import { compareColumnTypes, duckDbColumnType } from "./duckdb-types";

/** A column of a warehouse table, its type spelled as duckdb_columns() reports it. */
export interface WarehouseColumn {
  readonly name: string;
  readonly type: string;
}

/**
 * A destination inside one DuckDB database. The catalog (the database's name,
 * from its file name) is always spelled out: a dataset named like the file
 * would otherwise make `dataset.table` ambiguous.
 */
export interface DuckDbTable extends Destination {
  readonly catalog: string;
}

/** A day of a destination inside one DuckDB database. */
export interface DuckDbDay extends WarehouseDay {
  readonly destination: DuckDbTable;
}

/** Several days of one DuckDB table. */
export interface DuckDbDays extends WarehouseDays {
  readonly destination: DuckDbTable;
}

/** `"catalog"."dataset"`, quoted. */
export function qualifiedSchema(catalog: string, dataset: string): string {
  return `${quotedIdentifier(catalog)}.${quotedIdentifier(dataset)}`;
}

/** `"catalog"."dataset"."table"`, quoted. */
export function qualifiedName(table: DuckDbTable): string {
  return `${qualifiedSchema(table.catalog, table.dataset)}.${quotedIdentifier(table.table)}`;
}

/**
 * `filterColumn` within the day: every instant of the day, 23:59:59.999999
 * included, belongs to exactly one day, as on the source side. The bounds are
 * written into the SQL as TIMESTAMP literals rather than bound as parameters:
 * DuckDB then skips a prepare-and-bind round per statement, which is a good
 * part of what a small day costs. Only a checked `YYYY-MM-DD` day gets in.
 */
export function dayPredicate(filterColumn: string, day: CalendarDay): string {
  requireCalendarDay(day);
  const column = quotedIdentifier(filterColumn);
  return `${column} >= TIMESTAMP '${startOfDay(day)}' AND ${column} < TIMESTAMP '${startOfDay(addDays(day, 1))}'`;
}

/** A day written into SQL must be a checked `YYYY-MM-DD`; InvalidInputError on `day` otherwise. */
export function requireCalendarDay(day: string): void {
  if (!isCalendarDay(day))
    throw new InvalidInputError("day", `${JSON.stringify(day)} is not a YYYY-MM-DD day`);
}

/** The table's columns in table order; empty when the table does not exist. */
export async function tableColumns(
  connection: DuckDBConnection,
  table: DuckDbTable,
): Promise<WarehouseColumn[]> {
  // DuckDB matches identifiers case-insensitively even when quoted, so the catalog lookup does too.
  const reader = await connection.runAndReadAll(
    `SELECT column_name, data_type FROM duckdb_columns()
     WHERE database_name = $1 AND lower(schema_name) = lower($2) AND lower(table_name) = lower($3)
     ORDER BY column_index`,
    [table.catalog, table.dataset, table.table],
  );
  return reader.getRows().map(([name, type]) => ({ name: String(name), type: String(type) }));
}

/**
 * Creates the dataset and the table when missing, adds new source columns and
 * widens columns whose source type grew. Checks every column before changing
 * any, so an incompatible change leaves the table as it was.
 */
export async function ensureTableShape(
  connection: DuckDBConnection,
  destination: DuckDbTable,
  schema: TableSchema,
  options: { readonly json: boolean },
): Promise<void> {
  const wanted = schema.columns.map((column) => ({
    name: column.name,
    type: duckDbColumnType(column.logicalType, options),
  }));
  const table = qualifiedName(destination);
  await connection.run(
    `CREATE SCHEMA IF NOT EXISTS ${qualifiedSchema(destination.catalog, destination.dataset)}`,
  );
  const existing = await tableColumns(connection, destination);
  if (existing.length === 0) {
    const columns = wanted.map((column) => `${quotedIdentifier(column.name)} ${column.type}`);
    await connection.run(`CREATE TABLE IF NOT EXISTS ${table} (${columns.join(", ")})`);
    return;
  }
  const byName = new Map(existing.map((column) => [column.name.toLowerCase(), column]));
  const changes: string[] = [];
  const conflicts: string[] = [];
  for (const column of wanted) {
    const current = byName.get(column.name.toLowerCase());
    const name = quotedIdentifier(column.name);
    if (!current) {
      changes.push(`ALTER TABLE ${table} ADD COLUMN ${name} ${column.type}`);
      continue;
    }
    const change = compareColumnTypes(current.type, column.type);
    if (change === "widen") changes.push(`ALTER TABLE ${table} ALTER COLUMN ${name} TYPE ${column.type}`);
    if (change === "incompatible") {
      conflicts.push(
        `column ${column.name} is ${current.type} in the warehouse but the source now needs ${column.type}`,
      );
    }
  }
  if (conflicts.length > 0) {
    throw new RefusalError(`${formatDestination(destination)}: ${conflicts.join("; ")}`);
  }
  if (changes.length === 0) return;
  await connection.run("BEGIN TRANSACTION");
  try {
    for (const change of changes) await connection.run(change);
    await connection.run("COMMIT");
  } catch (error) {
    await rollback(connection);
    throw error;
  }
}

/**
 * Ends the connection's transaction after a failure. A failed ROLLBACK is not
 * reported: it means DuckDB already ended the transaction, and the error that
 * led here is the one worth seeing.
 */
export async function rollback(connection: DuckDBConnection): Promise<void> {
  await connection.run("ROLLBACK").catch(() => undefined);
}

/** Refuses a filter column the source schema does not have. */
export function requireFilterColumn(schema: TableSchema, filterColumn: string): void {
  const column = schema.columns.find((c) => c.name.toLowerCase() === filterColumn.toLowerCase());
  if (!column) {
    throw new InvalidInputError("filterColumn", `${filterColumn} is not a column of ${schema.name}`);
  }
}
