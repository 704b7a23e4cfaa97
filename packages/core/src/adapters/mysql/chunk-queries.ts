import type { ChunkTarget, DayChunk } from "../../model/day-chunks";
import type { MysqlPoolConnection } from "./create-mysql-pool";
import { dayCondition } from "./day-range";
import { integerText, isDenseKeyRange, keyRangeCondition } from "./key-range";
import { quoteIdentifier } from "./quote-identifier";
import { fingerprintSum, rowHashNumber } from "./row-fingerprint";
import type { SqlQuery } from "./sql-query";

/** The column a chunk is a range of, quoted (and qualified by `alias` when given). */
export function chunkOrder(target: ChunkTarget, alias?: string): string {
  const column = quoteIdentifier(target.by.kind === "key" ? target.by.column : target.scope.column);
  return alias ? `${alias}.${column}` : column;
}

/**
 * Where a day's key chunks start, after the first: every `chunkRows`-th key
 * of the day in key order. Numbered through the filter column's index alone
 * (it holds the primary key), so no row is read or hashed here.
 */
export function keyChunkStartsQuery(target: ChunkTarget, chunkRows: number): SqlQuery {
  const { scope } = target;
  const day = dayCondition(quoteIdentifier(scope.column), scope.day);
  const order = chunkOrder(target);
  return {
    sql: `SELECT CAST(k AS CHAR) FROM (
           SELECT ${order} AS k, ROW_NUMBER() OVER (ORDER BY ${order}) - 1 AS n
           FROM ${quoteIdentifier(scope.table)} WHERE ${day.sql}
         ) AS numbered WHERE n > 0 AND n MOD ${chunkRows} = 0 ORDER BY k`,
    values: day.values,
  };
}

/**
 * The figures of a day's key chunks, given where each starts after the first
 * (keyChunkStartsQuery): one short row per chunk, first and last key, rows,
 * content fingerprint and key sum, in key order. One pass over the day's
 * rows, grouped by INTERVAL (a binary search among the starts): no window,
 * no sort of the rows.
 */
export function keyChunkFiguresQuery(target: ChunkTarget, starts: readonly string[]): SqlQuery {
  const { scope, schema, by } = target;
  if (by.kind !== "key") throw new Error("key chunk figures need a key column");
  const day = dayCondition(quoteIdentifier(scope.column), scope.day);
  const k = chunkOrder(target);
  const figures = `CAST(MIN(${k}) AS CHAR), CAST(MAX(${k}) AS CHAR), COUNT(*), ${fingerprintSum(schema)}, CAST(SUM(${k}) AS CHAR)`;
  const from = `FROM ${quoteIdentifier(scope.table)} WHERE ${day.sql}`;
  if (starts.length === 0) {
    return { sql: `SELECT ${figures} ${from} HAVING COUNT(*) > 0`, values: day.values };
  }
  const cast = by.unsigned ? "UNSIGNED" : "SIGNED";
  const bounds = starts.map(() => `CAST(? AS ${cast})`).join(", ");
  return {
    sql: `SELECT ${figures} ${from} GROUP BY INTERVAL(${k}, ${bounds}) ORDER BY MIN(${k})`,
    values: [...day.values, ...starts.map(integerText)],
  };
}

/**
 * The time chunks of a day, planned by the server in one statement, one
 * short row per chunk (first, last, rows, content fingerprint): the day's
 * rows grouped by filter value; an instant goes to chunk (rows before it) DIV
 * chunkRows, so a chunk never splits one instant and holds at most
 * `chunkRows` rows unless a single instant holds more.
 */
export function timeChunkPlanQuery(target: ChunkTarget, chunkRows: number): SqlQuery {
  const { scope, schema } = target;
  const table = quoteIdentifier(scope.table);
  const day = dayCondition(quoteIdentifier(scope.column), scope.day);
  const hash = rowHashNumber(schema);
  const order = chunkOrder(target);
  return {
    sql: `SELECT MIN(v), MAX(v), CAST(SUM(n) AS UNSIGNED), CAST(SUM(h) AS CHAR) FROM (
         SELECT v, n, h, (SUM(n) OVER (ORDER BY v) - n) DIV ${chunkRows} AS g FROM (
           SELECT ${order} AS v, COUNT(*) AS n, SUM(${hash}) AS h FROM ${table} WHERE ${day.sql} GROUP BY ${order}
         ) AS per_value
       ) AS grouped GROUP BY g ORDER BY MIN(v)`,
    values: day.values,
  };
}

/** The rows of one chunk: the day's range and the chunk's range of `by`, on `alias` when given. */
export function chunkCondition(target: ChunkTarget, chunk: DayChunk, alias?: string): SqlQuery {
  const { scope, by } = target;
  const column = quoteIdentifier(scope.column);
  const day = dayCondition(alias ? `${alias}.${column}` : column, scope.day);
  const order = chunkOrder(target, alias);
  if (by.kind === "key") {
    const keys = keyRangeCondition(order, by.unsigned, chunk.first, chunk.last);
    return { sql: `${day.sql} AND ${keys.sql}`, values: [...day.values, ...keys.values] };
  }
  return {
    sql: `${day.sql} AND ${order} >= ? AND ${order} <= ?`,
    values: [...day.values, chunk.first, chunk.last],
  };
}

/**
 * Locks the chunk's rows and reads what they are now: count, content
 * fingerprint, and for key chunks the key sum. A dense key chunk is locked
 * through the primary key: only the rows of its range (see key-range.ts).
 */
export function lockChunkQuery(target: ChunkTarget, chunk: DayChunk): SqlQuery {
  const where = chunkCondition(target, chunk);
  const table = quoteIdentifier(target.scope.table);
  const figures = `COUNT(*), ${fingerprintSum(target.schema)}`;
  if (target.by.kind === "time") {
    return { sql: `SELECT ${figures} FROM ${table} WHERE ${where.sql} FOR UPDATE`, values: where.values };
  }
  const k = chunkOrder(target);
  const hint = isDenseKeyRange(chunk.first, chunk.last, chunk.rows) ? " FORCE INDEX (PRIMARY)" : "";
  return {
    sql: `SELECT ${figures}, CAST(COALESCE(SUM(${k}), 0) AS CHAR) FROM ${table}${hint} WHERE ${where.sql} FOR UPDATE`,
    values: where.values,
  };
}

/** Rows of the chunk's day now, through the filter column's index alone. */
export async function countDay(connection: MysqlPoolConnection, target: ChunkTarget): Promise<number> {
  const day = dayCondition(quoteIdentifier(target.scope.column), target.scope.day);
  const [counted] = await connection.query(
    {
      sql: `SELECT COUNT(*) FROM ${quoteIdentifier(target.scope.table)} WHERE ${day.sql}`,
      rowsAsArray: true,
    },
    [...day.values],
  );
  return Number((counted as unknown[][])[0]?.[0] ?? 0);
}
