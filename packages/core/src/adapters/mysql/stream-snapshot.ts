import type { MysqlPoolConnection } from "./create-mysql-pool";
import type { SqlQuery } from "./sql-query";

/** Runs a statement on the streaming connection and answers its rows as arrays. */
export type AskOnConnection = (query: SqlQuery<unknown>) => Promise<unknown[][]>;

/**
 * Starts one consistent, read-only snapshot on the connection and, with
 * `choose`, asks the server in it which statement to stream; else streams
 * `query` itself. Only REPEATABLE READ keeps one snapshot for the whole
 * transaction; a server configured for READ COMMITTED would give each
 * statement its own. These statements and the question (an index descent)
 * answer at once: a connection that stays silent longer than a stream may
 * (`quickMs`) is dead, and need not wait out a whole-day statement's limit.
 */
export async function beginSnapshot<Statement extends SqlQuery<unknown>>(
  pooled: MysqlPoolConnection,
  query: Statement & {
    readonly choose?: ((ask: AskOnConnection) => Promise<Statement>) | undefined;
  },
  quickMs: number,
): Promise<Statement> {
  await pooled.query({ sql: "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", timeoutMs: quickMs });
  await pooled.query({ sql: "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY", timeoutMs: quickMs });
  if (!query.choose) return query;
  return query.choose(async (asked) => {
    const [rows] = await pooled.query({ sql: asked.sql, rowsAsArray: true, timeoutMs: quickMs }, [
      ...asked.values,
    ]);
    return rows as unknown[][];
  });
}

/** Ends the snapshot (a read-only transaction: nothing to commit but its end). */
export async function finishSnapshot(pooled: MysqlPoolConnection, quickMs: number): Promise<void> {
  await pooled.query({ sql: "COMMIT", timeoutMs: quickMs });
}
