import { type MysqlErrorContext, mapMysqlError } from "./map-mysql-error";
import type { Queryable } from "./server-facts";

/** A statement (or a condition of one) and its bound values; the adapter's own are text, a driver's anything. */
export interface SqlQuery<Value = string> {
  readonly sql: string;
  readonly values: readonly Value[];
}

/** Runs one statement on a pool or connection: its rows as arrays, errors mapped with `context` (mapMysqlError). */
export async function queryRows(
  db: Queryable,
  query: SqlQuery<unknown>,
  context: MysqlErrorContext = {},
): Promise<unknown[][]> {
  try {
    const [rows] = await db.query({ sql: query.sql, rowsAsArray: true }, [...query.values]);
    return rows as unknown[][];
  } catch (error) {
    throw mapMysqlError(error, context);
  }
}
