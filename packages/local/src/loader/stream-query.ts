import type { Readable } from "node:stream";
import type { MysqlPool } from "@table-archiver/core/mysql";

/** One row as mysql2 decodes it with `rowsAsArray`, with the result's column names. */
export interface QueryRow {
  readonly columns: readonly string[];
  readonly values: readonly unknown[];
}

/**
 * mysql2's callback-style connection, as far as streaming uses it. The pool's
 * typings call it an object; at run time `PoolConnection.connection` is this.
 */
interface StreamingConnection {
  query(options: { sql: string; rowsAsArray: true }): {
    stream(options: { highWaterMark: number }): Readable;
  };
  readonly stream?: { destroy?(): void };
}

/** Rows buffered ahead of the consumer before the connection is paused. */
const READ_AHEAD_ROWS = 256;

/**
 * Streams a query's rows on a connection of its own. mysql2 pauses the
 * connection whenever READ_AHEAD_ROWS rows wait, so memory holds a bounded
 * number of rows whatever the size of the result. The connection goes back to
 * the pool after the last row; when the consumer stops early or the read
 * fails it is destroyed, since a connection with rows in flight cannot serve
 * another query.
 */
export async function* streamQuery(pool: MysqlPool, sql: string): AsyncGenerator<QueryRow, void, undefined> {
  const pooled = await pool.getConnection();
  const connection = pooled.connection as StreamingConnection;
  let columns: string[] = [];
  let complete = false;
  try {
    const rows = connection.query({ sql, rowsAsArray: true }).stream({ highWaterMark: READ_AHEAD_ROWS });
    rows.on("fields", (fields: { name: string }[] | undefined) => {
      columns = (fields ?? []).map((field) => field.name);
    });
    for await (const values of rows) yield { columns, values: values as unknown[] };
    complete = true;
  } finally {
    if (complete) {
      pooled.release();
    } else {
      pooled.destroy();
      connection.stream?.destroy?.();
    }
  }
}
