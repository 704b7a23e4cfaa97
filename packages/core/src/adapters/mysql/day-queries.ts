import { type CalendarDay, startOfDay } from "../../model/calendar-day";
import { type DayFigures, dayFiguresFrom } from "../../model/day-figures";
import type { SourceColumn, TableSchema } from "../../model/table-schema";
import { dayCondition } from "./day-range";
import { keyBoundsQuery, keyRangeCondition } from "./key-range";
import { quoteIdentifier } from "./quote-identifier";
import { readPlan } from "./read-plan";
import { fingerprintSum, rowHashHex } from "./row-fingerprint";
import type { SqlQuery } from "./sql-query";

/**
 * The earliest value of `column` in [from, before). On an indexed column
 * MIN over a range of that column is one descent of the index ("Select
 * tables optimized away"): its cost does not grow with the table. Without an
 * index each probe scans the table; the planner flags such columns.
 */
export function firstValueQuery(
  table: string,
  column: string,
  from: CalendarDay,
  before: CalendarDay,
): SqlQuery {
  const c = quoteIdentifier(column);
  return {
    sql: `SELECT MIN(${c}) FROM ${quoteIdentifier(table)} WHERE ${c} >= ? AND ${c} < ?`,
    values: [startOfDay(from), startOfDay(before)],
  };
}

/** One `firstValueQuery` per start day, as scalar subqueries of one SELECT: many probes, one round trip. */
export function firstValuesQuery(
  table: string,
  column: string,
  froms: readonly CalendarDay[],
  before: CalendarDay,
): SqlQuery {
  const c = quoteIdentifier(column);
  const probe = `(SELECT MIN(${c}) FROM ${quoteIdentifier(table)} WHERE ${c} >= ? AND ${c} < ?)`;
  return {
    sql: `SELECT ${froms.map(() => probe).join(", ")}`,
    values: froms.flatMap((from) => [startOfDay(from), startOfDay(before)]),
  };
}

/**
 * Every row of the day, in canonical values (see readPlan). Ordered by the
 * filter column only when it leads an index: the range scan then returns
 * rows in that order for free. Without an index the day is found by a full
 * scan anyway, and ORDER BY would add a filesort of the whole day before the
 * first row for an order the warehouse does not need (it replaces the day as
 * a whole), so those days stream in scan order. A re-copy alone asks for
 * `inKeyOrderOf` (it compares the rows with the warehouse's keys as they
 * come): ordered by that key, at the cost of a sort the copy never pays.
 */
export function dayRowsQuery(
  schema: TableSchema,
  column: string,
  day: CalendarDay,
  inKeyOrderOf?: SourceColumn,
): SqlQuery {
  const c = quoteIdentifier(column);
  const range = dayCondition(c, day);
  const order = inKeyOrderOf
    ? ` ORDER BY ${quoteIdentifier(inKeyOrderOf.name)}`
    : schema.indexLeadingColumns.includes(column)
      ? ` ORDER BY ${c}`
      : "";
  return {
    sql: `SELECT ${readPlan(schema).selectList} FROM ${quoteIdentifier(schema.name)} WHERE ${range.sql}${order}`,
    values: range.values,
  };
}

/**
 * The day's smallest and largest key as text, and its row count. The filter
 * column's index holds the key (InnoDB secondary indexes end with it), so this
 * reads that index alone.
 */
export function dayKeyBoundsQuery(
  schema: TableSchema,
  column: string,
  day: CalendarDay,
  key: SourceColumn,
): SqlQuery {
  return keyBoundsQuery(
    quoteIdentifier(schema.name),
    quoteIdentifier(key.name),
    dayCondition(quoteIdentifier(column), day),
  );
}

/**
 * Every row of the day, as dayRowsQuery, read along the primary key between
 * `min` and `max` (the day's bounds from dayKeyBoundsQuery), in key order:
 * about half the server's work of fetching each row through the filter
 * column's index, for days whose keys are dense (isDenseKeyRange).
 * Keys are bound as text and cast, so keys beyond 2^53 stay exact. With
 * `inKeyOrder` (a re-copy) the order the scan gives is also promised: ORDER
 * BY along the index being read sorts nothing.
 */
export function dayRowsByKeyQuery(
  schema: TableSchema,
  column: string,
  day: CalendarDay,
  key: SourceColumn,
  bounds: { readonly min: string; readonly max: string },
  inKeyOrder = false,
): SqlQuery {
  const range = dayCondition(quoteIdentifier(column), day);
  const unsigned = key.logicalType.kind === "uint64";
  const keys = keyRangeCondition(quoteIdentifier(key.name), unsigned, bounds.min, bounds.max);
  const order = inKeyOrder ? ` ORDER BY ${quoteIdentifier(key.name)}` : "";
  return {
    sql: `SELECT ${readPlan(schema).selectList} FROM ${quoteIdentifier(schema.name)} FORCE INDEX (PRIMARY) WHERE ${keys.sql} AND ${range.sql}${order}`,
    values: [...keys.values, ...range.values],
  };
}

/**
 * A day-rows statement (dayRowsQuery, dayRowsByKeyQuery) that also answers,
 * as each row's last column, its 64-bit content hash in hex (rowHashHex): the
 * same FROM, index and WHERE, so the same rows, hashed as the server reads
 * them. Their sum is the day's content fingerprint (see streamRows `hashed`).
 */
export function withRowHashes(schema: TableSchema, rows: SqlQuery): SqlQuery {
  const select = `SELECT ${readPlan(schema).selectList} FROM `;
  if (!rows.sql.startsWith(select)) throw new Error("not a statement of the day's rows");
  return {
    sql: `SELECT ${readPlan(schema).selectList}, ${rowHashHex(schema)} FROM ${rows.sql.slice(select.length)}`,
    values: rows.values,
  };
}

/**
 * Row count of the day, its content fingerprint and, with a key column, its
 * count, sum, min and max as text (see figuresColumns).
 */
export function dayFiguresQuery(
  schema: TableSchema,
  column: string,
  day: CalendarDay,
  key?: string,
): SqlQuery {
  const range = dayCondition(quoteIdentifier(column), day);
  return {
    sql: `SELECT ${figuresColumns(schema, key)} FROM ${quoteIdentifier(schema.name)} WHERE ${range.sql}`,
    values: range.values,
  };
}

/**
 * The select list of a set of rows' figures: row count, content fingerprint
 * and, with a key column, its count, sum, min and max as text. SUM of an
 * integer column is DECIMAL, exact beyond 2^64; no rows sum to 0.
 */
export function figuresColumns(schema: TableSchema, key?: string): string {
  const columns = `COUNT(*), ${fingerprintSum(schema)}`;
  if (!key) return columns;
  const k = quoteIdentifier(key);
  return `${columns}, COUNT(${k}), CAST(COALESCE(SUM(${k}), 0) AS CHAR), CAST(MIN(${k}) AS CHAR), CAST(MAX(${k}) AS CHAR)`;
}

/** The figures in a row of figuresColumns' values. */
export function figuresOf(values: readonly unknown[], key?: string): DayFigures {
  const [rows, fingerprint, count, sum, min, max] = values;
  return dayFiguresFrom(key, { rows, fingerprint, count, sum, min, max });
}
