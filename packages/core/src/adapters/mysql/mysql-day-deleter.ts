import type { ChunkOutcome, DayDeleter, DayScope, KeyChunk, KeyColumn } from "../../ports/day-deleter";
import type { MysqlPool, MysqlPoolConnection } from "./create-mysql-pool";
import { dayCondition, type SqlCondition } from "./day-range";
import { integerText, isDenseKeyRange } from "./key-range";
import { mapMysqlError } from "./map-mysql-error";
import { quoteIdentifier } from "./quote-identifier";

/**
 * DayDeleter on a pool made by createMysqlPool. Keys are bound as text and
 * compared as `CAST(? AS SIGNED|UNSIGNED)`, so keys beyond 2^53 compare as
 * integers, never as doubles. Each keyed chunk is one transaction on one
 * connection: a locking read of the chunk (count and key sum), the delete only
 * on an exact match, and a commit only when the delete removed exactly the
 * locked rows.
 */
export function createMysqlDayDeleter(pool: MysqlPool): DayDeleter {
  return {
    async planKeyChunks(scope, key, chunkRows) {
      requireChunkRows(chunkRows);
      const day = dayCondition(quoteIdentifier(scope.column), scope.day);
      const k = quoteIdentifier(key.column);
      // Numbered in key order and summed per chunk by the server, so a day
      // of millions of keys comes back as one short row per chunk. The filter
      // column's index holds the key too: the day is read from it alone.
      const rows = (await run(
        pool,
        scope,
        `SELECT COUNT(*), CAST(SUM(k) AS CHAR), CAST(MIN(k) AS CHAR), CAST(MAX(k) AS CHAR) FROM (
           SELECT ${k} AS k, ROW_NUMBER() OVER (ORDER BY ${k}) - 1 AS n
           FROM ${quoteIdentifier(scope.table)} WHERE ${day.sql}
         ) AS numbered GROUP BY n DIV ${chunkRows} ORDER BY MIN(k)`,
        [...day.values],
      )) as unknown[][];
      return rows.map(([count, sum, first, last]) => ({
        first: integerText(String(first)),
        last: integerText(String(last)),
        rows: Number(count),
        sum: integerText(String(sum)),
      }));
    },

    async deleteKeyChunk(scope, key, chunk) {
      const connection = await connect(pool, scope);
      try {
        await connection.query({ sql: "START TRANSACTION" });
        const outcome = await lockAndDelete(connection, scope, key, chunk);
        await connection.query({ sql: outcome.kind === "deleted" ? "COMMIT" : "ROLLBACK" });
        connection.release();
        return outcome;
      } catch (error) {
        // A failed COMMIT may or may not have committed; the chunk is then
        // either intact or gone, and a retry tells which ("absent").
        await rollbackOrDestroy(connection);
        throw mapMysqlError(error, { table: scope.table, column: scope.column });
      }
    },

    async countDay(scope) {
      const day = dayCondition(quoteIdentifier(scope.column), scope.day);
      const [row] = (await run(
        pool,
        scope,
        `SELECT COUNT(*) FROM ${quoteIdentifier(scope.table)} WHERE ${day.sql}`,
        [...day.values],
      )) as unknown[][];
      return Number(row?.[0] ?? 0);
    },

    async deleteRows(scope, limit) {
      requireChunkRows(limit);
      const day = dayCondition(quoteIdentifier(scope.column), scope.day);
      // One statement commits on its own (autocommit). Without a key there is
      // no order that names the same rows on a statement-based replica; see
      // docs/cleanup.md on binlog formats.
      const result = (await run(
        pool,
        scope,
        `DELETE FROM ${quoteIdentifier(scope.table)} WHERE ${day.sql} LIMIT ${limit}`,
        [...day.values],
      )) as { affectedRows: number };
      return result.affectedRows;
    },

    describeDelete(scope, range) {
      const day = dayCondition(quoteIdentifier(scope.column), scope.day);
      const values = [...day.values];
      const where = day.sql.replace(/\?/g, () => `'${values.shift()}'`);
      const keyed = range
        ? ` AND ${quoteIdentifier(range.column)} BETWEEN ${integerText(range.min)} AND ${integerText(range.max)}`
        : "";
      return `DELETE FROM ${quoteIdentifier(scope.table)} WHERE ${where}${keyed}`;
    },
  };
}

async function lockAndDelete(
  connection: MysqlPoolConnection,
  scope: DayScope,
  key: KeyColumn,
  chunk: KeyChunk,
): Promise<ChunkOutcome> {
  const where = chunkCondition(scope, key, chunk);
  const k = quoteIdentifier(key.column);
  const table = quoteIdentifier(scope.table);
  // A dense chunk is locked through the primary key: only the rows of its range (see key-range.ts).
  const hint = isDenseKeyRange(chunk.first, chunk.last, chunk.rows) ? " FORCE INDEX (PRIMARY)" : "";
  const [rows] = await connection.query(
    {
      sql: `SELECT COUNT(*), CAST(COALESCE(SUM(${k}), 0) AS CHAR) FROM ${table}${hint} WHERE ${where.sql} FOR UPDATE`,
      rowsAsArray: true,
    },
    [...where.values],
  );
  const [count, sum] = (rows as unknown[][])[0] ?? [0, "0"];
  const found = { rows: Number(count), sum: String(sum) };
  if (found.rows === 0) return { kind: "absent" };
  if (found.rows !== chunk.rows || BigInt(found.sum) !== BigInt(chunk.sum))
    return { kind: "changed", ...found };
  const [result] = await connection.query({ sql: `DELETE FROM ${table} WHERE ${where.sql}` }, [
    ...where.values,
  ]);
  const deleted = (result as { affectedRows: number }).affectedRows;
  // Under READ COMMITTED no gap lock keeps a new row out of the range between
  // the two statements; a delete that removed more than it locked rolls back.
  if (deleted !== found.rows) return { kind: "changed", rows: deleted, sum: "unknown" };
  return { kind: "deleted", rows: deleted };
}

function chunkCondition(
  scope: DayScope,
  key: KeyColumn,
  chunk: { first: string; last: string },
): SqlCondition {
  const day = dayCondition(quoteIdentifier(scope.column), scope.day);
  const k = quoteIdentifier(key.column);
  const cast = key.unsigned ? "UNSIGNED" : "SIGNED";
  return {
    sql: `${day.sql} AND ${k} >= CAST(? AS ${cast}) AND ${k} <= CAST(? AS ${cast})`,
    values: [...day.values, integerText(chunk.first), integerText(chunk.last)],
  };
}

function requireChunkRows(rows: number): void {
  if (!Number.isSafeInteger(rows) || rows < 1)
    throw new Error(`chunk size must be a positive integer, got ${rows}`);
}

async function connect(pool: MysqlPool, scope: DayScope): Promise<MysqlPoolConnection> {
  try {
    return await pool.getConnection();
  } catch (error) {
    throw mapMysqlError(error, { table: scope.table });
  }
}

/** A connection whose rollback fails is in an unknown state: close it rather than hand it back. */
async function rollbackOrDestroy(connection: MysqlPoolConnection): Promise<void> {
  try {
    await connection.query({ sql: "ROLLBACK" });
    connection.release();
  } catch {
    connection.destroy();
  }
}

/** One statement on the pool; its answer (rows as arrays, or the write's result), errors mapped. */
async function run(pool: MysqlPool, scope: DayScope, sql: string, values: unknown[]): Promise<unknown> {
  try {
    const [answer] = await pool.query({ sql, rowsAsArray: true }, values);
    return answer;
  } catch (error) {
    throw mapMysqlError(error, { table: scope.table, column: scope.column });
  }
}
