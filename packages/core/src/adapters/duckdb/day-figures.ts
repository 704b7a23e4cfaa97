import { type DuckDBConnection, quotedIdentifier } from "@duckdb/node-api";
import type { DayFigures } from "../../domain/types/day-figures";
import { type DuckDbDay, dayPredicate, qualifiedName } from "./duckdb-catalog";

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
  const key = keyColumn ? quotedIdentifier(keyColumn) : "NULL";
  const reader = await connection.runAndReadAll(
    `SELECT COUNT(*), COUNT(${key}), CAST(COALESCE(SUM(CAST(${key} AS HUGEINT)), 0) AS VARCHAR),
            COALESCE(CAST(MIN(${key}) AS VARCHAR), ''), COALESCE(CAST(MAX(${key}) AS VARCHAR), '')
     FROM ${qualifiedName(destination)} WHERE ${dayPredicate(filterColumn, day)}`,
  );
  const [rows, count, sum, min, max] = reader.getRows()[0] ?? [];
  const figures = { rows: Number(rows) };
  if (!keyColumn) return figures;
  return {
    ...figures,
    key: { column: keyColumn, count: Number(count), sum: String(sum), min: String(min), max: String(max) },
  };
}

/**
 * The keys the day holds in `keyColumn`, as decimal text (`CAST AS VARCHAR`
 * prints UBIGINT and negative BIGINT keys exactly), in no particular order.
 * A row without a key has none to list.
 */
export async function dayKeysOn(
  connection: DuckDBConnection,
  { destination, filterColumn, day }: DuckDbDay,
  keyColumn: string,
): Promise<string[]> {
  const key = quotedIdentifier(keyColumn);
  const reader = await connection.runAndReadAll(
    `SELECT CAST(${key} AS VARCHAR) FROM ${qualifiedName(destination)}
     WHERE ${dayPredicate(filterColumn, day)} AND ${key} IS NOT NULL`,
  );
  return reader.getRows().map(([value]) => String(value));
}
