import { type DuckDBConnection, quotedIdentifier } from "@duckdb/node-api";
import type { CalendarDay } from "../../model/calendar-day";
import { type DayFigures, dayFiguresFrom, emptyDaysFigures } from "../../model/day-figures";
import { spanOfDays } from "../../model/warehouse-day";
import {
  type DuckDbDay,
  type DuckDbDays,
  dayPredicate,
  qualifiedName,
  requireCalendarDay,
} from "./duckdb-catalog";

/**
 * The day's rows and, for `keyColumn`, its count/sum/min/max as exact decimal
 * strings, on `connection` (inside its transaction when one is open). The sum
 * runs over HUGEINT: a day of UBIGINT keys can sum past 2^64. An empty day has
 * sum "0" and empty bounds, as the source side reports it.
 */
export async function dayFiguresOn(
  connection: DuckDBConnection,
  { destination, filterColumn, day }: DuckDbDay,
  keyColumn: string | undefined,
): Promise<DayFigures> {
  const reader = await connection.runAndReadAll(
    `SELECT ${figureColumns(keyColumn)} FROM ${qualifiedName(destination)} WHERE ${dayPredicate(filterColumn, day)}`,
  );
  return figuresOf(reader.getRows()[0] ?? [], keyColumn);
}

/**
 * dayFiguresOn for each of `days`, in one pass grouped by day over the range
 * that spans them; a day without rows gets the figures of an empty day.
 */
export async function daysFiguresOn(
  connection: DuckDBConnection,
  { destination, filterColumn, days }: DuckDbDays,
  keyColumn: string | undefined,
): Promise<Map<CalendarDay, DayFigures>> {
  for (const day of days) requireCalendarDay(day);
  const figures = emptyDaysFigures(days, keyColumn);
  const span = spanOfDays(days);
  if (!span) return figures;
  const column = quotedIdentifier(filterColumn);
  const reader = await connection.runAndReadAll(
    `SELECT CAST(CAST(${column} AS DATE) AS VARCHAR), ${figureColumns(keyColumn)}
     FROM ${qualifiedName(destination)}
     WHERE ${column} >= TIMESTAMP '${span.start}' AND ${column} < TIMESTAMP '${span.end}' GROUP BY 1`,
  );
  for (const [day, ...values] of reader.getRows()) {
    if (figures.has(String(day))) figures.set(String(day), figuresOf(values, keyColumn));
  }
  return figures;
}

function figureColumns(keyColumn: string | undefined): string {
  const key = keyColumn ? quotedIdentifier(keyColumn) : "NULL";
  return `COUNT(*), COUNT(${key}), CAST(COALESCE(SUM(CAST(${key} AS HUGEINT)), 0) AS VARCHAR),
            COALESCE(CAST(MIN(${key}) AS VARCHAR), ''), COALESCE(CAST(MAX(${key}) AS VARCHAR), '')`;
}

function figuresOf(values: readonly unknown[], keyColumn: string | undefined): DayFigures {
  const [rows, count, sum, min, max] = values;
  return dayFiguresFrom(keyColumn, { rows, count, sum, min, max });
}
