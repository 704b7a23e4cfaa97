import type { MysqlPoolConnection } from "./create-mysql-pool";

/** A statement and its placeholder values. */
export interface Statement {
  readonly sql: string;
  readonly values: readonly unknown[];
}

/** The statement to stream, and the one that fingerprints exactly its rows when it differs from the default. */
export interface ChosenStatement extends Statement {
  readonly fingerprint?: Statement | undefined;
}

/** Runs a statement on the streaming connection and answers its rows as arrays. */
export type AskOnConnection = (query: Statement) => Promise<unknown[][]>;

/**
 * Starts one consistent, read-only snapshot on the connection and, with
 * `choose`, asks the server in it which statement to stream; else streams
 * `query` itself. Only REPEATABLE READ keeps one snapshot for the whole
 * transaction; a server configured for READ COMMITTED would give each
 * statement its own. These statements and the question (an index descent)
 * answer at once: a connection that stays silent longer than a stream may
 * (`quickMs`) is dead, and need not wait out a whole-day statement's limit.
 */
export async function beginSnapshot(
  pooled: MysqlPoolConnection,
  query: Statement & { readonly choose?: ((ask: AskOnConnection) => Promise<ChosenStatement>) | undefined },
  quickMs: number,
): Promise<ChosenStatement> {
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

/**
 * Reads the streamed rows' fingerprint in their snapshot with the
 * `fingerprint` statement (when there is one: "" otherwise), checking it
 * counted the `rows` streamed, then ends the snapshot.
 */
export async function finishSnapshot(
  pooled: MysqlPoolConnection,
  fingerprint: Statement | undefined,
  rows: number,
  quickMs: number,
): Promise<string> {
  let sum = "";
  if (fingerprint) {
    const [answer] = await pooled.query({ sql: fingerprint.sql, rowsAsArray: true }, [...fingerprint.values]);
    const [count, fingerprinted] = (answer as unknown[][])[0] ?? [];
    // One snapshot: a different count means the statements did not select the same rows.
    if (Number(count) !== rows) {
      throw new Error(`the fingerprint counted ${String(count)} rows where ${rows} were streamed`);
    }
    sum = String(fingerprinted);
  }
  await pooled.query({ sql: "COMMIT", timeoutMs: quickMs });
  return sum;
}
