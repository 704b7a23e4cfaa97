import { MYSQL_TIMEOUT_DEFAULTS } from "../../config/env-schema";
import type { Row } from "../../domain/types/table-schema";
import type { DayStream, DayStreamStats } from "../../ports/source-database";
import type { MysqlPool, MysqlPoolConnection } from "./create-mysql-pool";
import { isZeroDate } from "./day-range";
import { type MysqlErrorContext, mapMysqlError } from "./map-mysql-error";

/** Runs a statement on the streaming connection and answers its rows as arrays. */
export type AskOnConnection = (query: {
  readonly sql: string;
  readonly values: readonly unknown[];
}) => Promise<unknown[][]>;

/** A query whose rows are read in batches. */
export interface StreamedQuery {
  readonly sql: string;
  readonly values: readonly unknown[];
  /**
   * Picks the statement to stream after asking the server first (a day's key
   * bounds, say). The question and the stream then share one consistent,
   * read-only snapshot, so the answer describes exactly the rows streamed.
   */
  readonly choose?: (
    ask: AskOnConnection,
  ) => Promise<{ readonly sql: string; readonly values: readonly unknown[] }>;
  readonly batchRows: number;
  /** Positions whose zero dates become null (see ReadPlan). */
  readonly zeroDateColumns: readonly number[];
  /**
   * A statement answering `[row count, content fingerprint]` of exactly the
   * streamed rows, run on the same connection in the same snapshot once the
   * rows are read: the server hashes the rows where it holds them, and the
   * reader's thread pays nothing per row.
   */
  readonly fingerprint?: { readonly sql: string; readonly values: readonly unknown[] };
  readonly context: MysqlErrorContext;
}

/**
 * mysql2's callback-style connection, as far as streaming uses it. Its
 * typings call `PoolConnection.connection` a promise connection, but at run
 * time it is this one.
 */
interface StreamingConnection {
  query(options: { sql: string; values: unknown[]; rowsAsArray: true }): QueryEvents;
  pause(): void;
  resume(): void;
  /**
   * A lost connection (closed socket, network error) is reported here, not on
   * a query that has no callback: a streamed query never hears of it.
   */
  on(event: "error" | "end", listener: (error?: unknown) => void): unknown;
  removeListener(event: "error" | "end", listener: (error?: unknown) => void): unknown;
  readonly stream?: { readonly bytesRead?: number; destroy?(): void };
}

interface QueryEvents {
  on(event: "result", listener: (row: unknown[]) => void): QueryEvents;
  on(event: "error", listener: (error: unknown) => void): QueryEvents;
  on(event: "end", listener: () => void): QueryEvents;
}

/**
 * Streams a query's rows on a connection of its own, in batches of
 * `batchRows`. Backpressure: once a full batch waits for the consumer, the
 * connection is paused, so memory holds the batch being consumed, at most one
 * waiting batch and one socket read, never the whole result. Rows are the
 * arrays mysql2 builds (rowsAsArray, no typeCast function); only zero dates
 * are rewritten in place.
 *
 * The connection goes back to the pool once every row has been read. When
 * the consumer stops early or the read fails it is destroyed instead: a
 * connection with rows still in flight cannot serve another query, and
 * draining it could mean reading the rest of a large day for nothing.
 *
 * Every read ends: a connection lost mid-stream (also one that closed while
 * paused, noticed on resume) fails the stream at once, and so does a server
 * that sends nothing for the pool's `streamIdleMs` while the stream waits for
 * rows (a network path that drops packets without closing the connection).
 * Both reach the consumer as TransientError, so the task is retried; the
 * statements around the stream are bounded by the pool's `queryMs`.
 */
export function streamRows(pool: MysqlPool, query: StreamedQuery): DayStream {
  if (!Number.isInteger(query.batchRows) || query.batchRows < 1) {
    throw new RangeError(`batchRows must be a positive integer, got ${query.batchRows}`);
  }
  const stats = { rows: 0, bytes: 0, zeroDates: 0, fingerprint: "" };
  return {
    batches: { [Symbol.asyncIterator]: () => readBatches(pool, query, stats) },
    stats: (): DayStreamStats => ({ ...stats }),
  };
}

async function* readBatches(
  pool: MysqlPool,
  query: StreamedQuery,
  stats: { rows: number; bytes: number; zeroDates: number; fingerprint: string },
): AsyncGenerator<readonly Row[], void, undefined> {
  const { batchRows, zeroDateColumns } = query;
  const snapshot = query.choose !== undefined || query.fingerprint !== undefined;
  const pooled = await pool.getConnection().catch((error: unknown) => {
    throw mapMysqlError(error, query.context);
  });
  const connection = pooled.connection as StreamingConnection;
  const idleMs = pool.timeouts?.streamIdleMs ?? MYSQL_TIMEOUT_DEFAULTS.streamIdleSeconds * 1000;
  let statement: { readonly sql: string; readonly values: readonly unknown[] } = query;
  if (snapshot) {
    try {
      // Only REPEATABLE READ keeps one snapshot for the whole transaction; a server
      // configured for READ COMMITTED would give each statement its own.
      // These and the question (an index descent) answer at once: a connection that stays
      // silent longer than a stream may is dead, and need not wait out a whole-day statement's limit.
      await pooled.query({ sql: "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", timeoutMs: idleMs });
      await pooled.query({ sql: "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY", timeoutMs: idleMs });
      if (query.choose) {
        statement = await query.choose(async (asked) => {
          const [rows] = await pooled.query({ sql: asked.sql, rowsAsArray: true, timeoutMs: idleMs }, [
            ...asked.values,
          ]);
          return rows as unknown[][];
        });
      }
    } catch (error) {
      pooled.destroy();
      throw mapMysqlError(error, query.context);
    }
  }
  const bytesAtStart = connection.stream?.bytesRead ?? 0;
  const bytesSoFar = () => (connection.stream?.bytesRead ?? bytesAtStart) - bytesAtStart;

  const waiting: unknown[][][] = [];
  let filling: unknown[][] = [];
  let paused = false;
  let ended = false;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const signal = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };

  /** Rows received, so that a quiet server can be told from a busy one without reading the clock per row. */
  let received = 0;
  const onLost = (error?: unknown) => {
    if (ended) return;
    failure ??= { error: error ?? connectionLost() };
    signal();
  };

  const onRow = (row: unknown[]) => {
    received++;
    for (const index of zeroDateColumns) {
      const value = row[index];
      if (typeof value === "string" && isZeroDate(value)) {
        row[index] = null;
        stats.zeroDates++;
      }
    }
    filling.push(row);
    if (filling.length === batchRows) {
      waiting.push(filling);
      filling = [];
      if (!paused) {
        paused = true;
        connection.pause();
      }
      signal();
    }
  };
  let complete = false;
  connection.on("error", onLost);
  connection.on("end", onLost);
  try {
    connection
      .query({ sql: statement.sql, values: [...statement.values], rowsAsArray: true })
      .on("result", onRow)
      .on("error", (error) => {
        failure = { error };
        signal();
      })
      .on("end", () => {
        ended = true;
        signal();
      });
    for (;;) {
      if (failure) throw mapMysqlError(failure.error, query.context);
      const batch = waiting.shift() ?? (ended && filling.length > 0 ? takeFilling() : undefined);
      if (batch) {
        stats.rows += batch.length;
        stats.bytes = bytesSoFar();
        // Read the next batch while the consumer handles this one.
        if (paused) {
          paused = false;
          connection.resume();
        }
        yield batch;
      } else if (ended) {
        if (snapshot) await finishSnapshot(pooled, query, stats, idleMs);
        break;
      } else {
        await untilSignalled();
      }
    }
    complete = true;
  } finally {
    connection.removeListener("error", onLost);
    connection.removeListener("end", onLost);
    stats.bytes = bytesSoFar();
    if (complete) {
      pooled.release();
    } else {
      // The connection is discarded; whatever it still reports must not go unheard (an unheard
      // "error" event would end the process).
      connection.on("error", () => {});
      pooled.destroy();
      // destroy() only half-closes the socket; a paused reader would leave the
      // server blocked writing the rest of the day for net_write_timeout.
      connection.stream?.destroy?.();
    }
  }

  /**
   * Waits for the next batch, the end or a failure; fails the read once the
   * server has sent nothing (no byte, no row) for `idleMs`. Checked a few
   * times per period, so a quiet server is noticed within 1.25 × idleMs.
   */
  function untilSignalled(): Promise<void> {
    return new Promise<void>((resolve) => {
      const activity = () => received + (connection.stream?.bytesRead ?? 0);
      let seen = activity();
      let quietSince = Date.now();
      let timer: NodeJS.Timeout | undefined;
      const check = () => {
        const now = Date.now();
        const current = activity();
        if (current !== seen) {
          seen = current;
          quietSince = now;
        } else if (now - quietSince >= idleMs) {
          failure ??= { error: idleTimeout(idleMs) };
          signal();
          return;
        }
        timer = setTimeout(check, Math.max(1, Math.min(idleMs / 4, quietSince + idleMs - now)));
      };
      timer = setTimeout(check, Math.max(1, idleMs / 4));
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  function takeFilling(): unknown[][] {
    const last = filling;
    filling = [];
    return last;
  }
}

/** The connection closed under the stream without an error of its own (the server ended it). */
function connectionLost(): Error {
  return Object.assign(new Error("Connection lost: the server closed the connection mid-stream"), {
    code: "PROTOCOL_CONNECTION_LOST",
    fatal: true,
  });
}

/** A stream that heard nothing for MYSQL_STREAM_IDLE_SECONDS, as mapMysqlError reads it: retryable. */
function idleTimeout(ms: number): Error {
  return Object.assign(
    new Error(
      `no data from MySQL for ${ms / 1000} s while streaming rows (MYSQL_STREAM_IDLE_SECONDS); the connection was closed`,
    ),
    { code: "PROTOCOL_SEQUENCE_TIMEOUT", fatal: true },
  );
}

/** Reads the streamed rows' fingerprint in their snapshot (when asked for), then ends the snapshot. */
async function finishSnapshot(
  pooled: MysqlPoolConnection,
  query: StreamedQuery,
  stats: { rows: number; fingerprint: string },
  quickMs: number,
): Promise<void> {
  try {
    if (query.fingerprint) {
      const [answer] = await pooled.query({ sql: query.fingerprint.sql, rowsAsArray: true }, [
        ...query.fingerprint.values,
      ]);
      const [count, fingerprint] = (answer as unknown[][])[0] ?? [];
      // One snapshot: a different count means the statements did not select the same rows.
      if (Number(count) !== stats.rows) {
        throw new Error(`the fingerprint counted ${String(count)} rows where ${stats.rows} were streamed`);
      }
      stats.fingerprint = String(fingerprint);
    }
    await pooled.query({ sql: "COMMIT", timeoutMs: quickMs });
  } catch (error) {
    throw mapMysqlError(error, query.context);
  }
}
