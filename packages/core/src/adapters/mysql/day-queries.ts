import { type CalendarDay, startOfDay } from "../../domain/days/calendar-day";
import type { SourceColumn, TableSchema } from "../../domain/types/table-schema";
import { dayCondition } from "./day-range";
import { quoteIdentifier } from "./quote-identifier";
import { readPlan } from "./read-plan";

/** A statement and its bound values. */
export interface SqlQuery {
  readonly sql: string;
  readonly values: readonly string[];
}

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
 * a whole), so those days stream in scan order.
 */
export function dayRowsQuery(schema: TableSchema, column: string, day: CalendarDay): SqlQuery {
  const c = quoteIdentifier(column);
  const range = dayCondition(c, day);
  const order = schema.indexLeadingColumns.includes(column) ? ` ORDER BY ${c}` : "";
  return {
    sql: `SELECT ${readPlan(schema).selectList} FROM ${quoteIdentifier(schema.name)} WHERE ${range.sql}${order}`,
    values: range.values,
  };
}

/**
 * A day is read through its primary-key range when the keys between its
 * first and last are at most this many times its rows: the clustered index
 * is then scanned in order (about half the server's work of fetching each
 * row through the filter column's index), touching at most this many rows
 * per row wanted. Gaps in the keys cost nothing.
 */
export const DENSE_KEY_FACTOR = 4n;

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
  const range = dayCondition(quoteIdentifier(column), day);
  const k = quoteIdentifier(key.name);
  return {
    sql: `SELECT CAST(MIN(${k}) AS CHAR), CAST(MAX(${k}) AS CHAR), COUNT(*) FROM ${quoteIdentifier(schema.name)} WHERE ${range.sql}`,
    values: range.values,
  };
}

/** True when a day's key range is dense enough to be read through the primary key (DENSE_KEY_FACTOR). */
export function isDenseKeyRange(min: string, max: string, rows: number): boolean {
  return BigInt(max) - BigInt(min) + 1n <= DENSE_KEY_FACTOR * BigInt(Math.max(rows, 1));
}

/**
 * Every row of the day, as dayRowsQuery, read along the primary key between
 * `min` and `max` (the day's bounds from dayKeyBoundsQuery), in key order.
 * Keys are bound as text and cast, so keys beyond 2^53 stay exact.
 */
export function dayRowsByKeyQuery(
  schema: TableSchema,
  column: string,
  day: CalendarDay,
  key: SourceColumn,
  bounds: { readonly min: string; readonly max: string },
): SqlQuery {
  const range = dayCondition(quoteIdentifier(column), day);
  const k = quoteIdentifier(key.name);
  const cast = key.logicalType.kind === "uint64" ? "UNSIGNED" : "SIGNED";
  return {
    sql: `SELECT ${readPlan(schema).selectList} FROM ${quoteIdentifier(schema.name)} FORCE INDEX (PRIMARY) WHERE ${k} >= CAST(? AS ${cast}) AND ${k} <= CAST(? AS ${cast}) AND ${range.sql}`,
    values: [integerText(bounds.min), integerText(bounds.max), ...range.values],
  };
}

/** A key as canonical decimal text; anything else is a bug upstream and must never reach SQL. */
function integerText(value: string): string {
  if (!/^-?\d+$/.test(value)) throw new Error(`not an integer key: ${JSON.stringify(value)}`);
  return BigInt(value).toString();
}

/**
 * Row count of the day and, with a key column, its count, sum, min and max as
 * text. SUM of an integer column is DECIMAL, exact beyond 2^64; an empty day
 * sums to 0.
 */
export function dayFiguresQuery(
  schema: TableSchema,
  column: string,
  day: CalendarDay,
  key?: string,
): SqlQuery {
  const range = dayCondition(quoteIdentifier(column), day);
  const from = `FROM ${quoteIdentifier(schema.name)} WHERE ${range.sql}`;
  if (!key) return { sql: `SELECT COUNT(*) ${from}`, values: range.values };
  const k = quoteIdentifier(key);
  return {
    sql: `SELECT COUNT(*), COUNT(${k}), CAST(COALESCE(SUM(${k}), 0) AS CHAR), CAST(MIN(${k}) AS CHAR), CAST(MAX(${k}) AS CHAR) ${from}`,
    values: range.values,
  };
}
