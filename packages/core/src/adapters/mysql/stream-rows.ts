import { MYSQL_TIMEOUT_DEFAULTS } from "../../config/env-schema";
import type { Row } from "../../model/table-schema";
import type { DayStream, DayStreamStats } from "../../ports/source-database";
import type { MysqlPool } from "./create-mysql-pool";
import { isZeroDate } from "./day-range";
import { createKeyChunker, createKeyOrderChunker } from "./key-chunker";
import { type MysqlErrorContext, mapMysqlError } from "./map-mysql-error";
import type { RowHasher } from "./row-fingerprint";
import type { SqlQuery } from "./sql-query";
import { type AskOnConnection, beginSnapshot, finishSnapshot } from "./stream-snapshot";
import { connectionLost, idleTimeout, type StreamingConnection } from "./streaming-connection";

/** A statement to stream. */
export interface StreamedStatement extends SqlQuery<unknown> {
  /**
   * The statement orders its rows by `chunkKey` (ORDER BY the key): the key
   * chunks are then cut as the rows arrive, keeping no row's key or hash
   * (createKeyOrderChunker); otherwise every key is kept until the end.
   */
  readonly inKeyOrder?: boolean;
  /**
   * The same rows as `sql`, in the same order, as statements of at most one
   * batch each, read one after another in the snapshot only as each batch
   * is asked for: a paced reader then paces the server too. Honoured only
   * from `choose`, whose snapshot the pages share.
   */
  readonly pages?: Iterable<SqlQuery<unknown>>;
}

/** A query whose rows are read in batches. */
export interface StreamedQuery extends StreamedStatement {
  /**
   * Picks the statement to stream after asking the server first (a day's key
   * bounds, say). The question and the stream then share one consistent,
   * read-only snapshot, so the answer describes exactly the rows streamed.
   */
  readonly choose?: (ask: AskOnConnection) => Promise<StreamedStatement>;
  readonly batchRows: number;
  /** Positions whose zero dates become null (see ReadPlan). */
  readonly zeroDateColumns: readonly number[];
  /** Positions of floats read as text, made numbers (see ReadPlan). */
  readonly floatColumns?: readonly number[];
  /**
   * How each row's 64-bit content hash (see row-fingerprint.ts) is found, to
   * add up to the stream's fingerprint, the sum the server would compute over
   * the same rows, so the day is read once, not once more to fingerprint it:
   * computed by the RowHasher given here from the row as it arrives (before
   * zero dates and floats are rewritten), or, with "server", read from the
   * statement's last column, 16 hex digits taken off every row.
   */
  readonly hashed?: RowHasher | "server";
  /**
   * The position of the table's one integer key in each row: with `hashed`,
   * the stream also cuts the day into key chunks with their figures
   * (DayStreamStats.chunks, see createKeyChunker).
   */
  readonly chunkKey?: { readonly index: number; readonly unsigned: boolean };
  readonly context: MysqlErrorContext;
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
  const stats: Stats = { rows: 0, bytes: 0, zeroDates: 0, fingerprint: "" };
  return {
    batches: { [Symbol.asyncIterator]: () => readBatches(pool, query, stats) },
    stats: (): DayStreamStats => ({ ...stats }),
  };
}

type Stats = { -readonly [K in keyof DayStreamStats]: DayStreamStats[K] };

async function* readBatches(
  pool: MysqlPool,
  query: StreamedQuery,
  stats: Stats,
): AsyncGenerator<readonly Row[], void, undefined> {
  const { batchRows, zeroDateColumns, floatColumns = [], hashed, chunkKey } = query;
  const snapshot = query.choose !== undefined;
  let fingerprint = 0n;
  const pooled = await pool.getConnection().catch((error: unknown) => {
    throw mapMysqlError(error, query.context);
  });
  const connection = pooled.connection as StreamingConnection;
  const idleMs = pool.timeouts?.streamIdleMs ?? MYSQL_TIMEOUT_DEFAULTS.streamIdleSeconds * 1000;
  let statement: StreamedStatement = query;
  if (snapshot) {
    statement = await beginSnapshot(pooled, query, idleMs).catch((error: unknown) => {
      pooled.destroy();
      throw mapMysqlError(error, query.context);
    });
  }
  const chunkerFor = statement.inKeyOrder ? createKeyOrderChunker : createKeyChunker;
  const chunker = hashed && chunkKey ? chunkerFor(chunkKey.unsigned) : undefined;
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

  /** A row as it arrives: hashed (and its key chunked), zero dates and floats rewritten in place. */
  const prepare = (row: unknown[]) => {
    if (hashed) {
      const hash = hashed === "server" ? BigInt(`0x${row.pop() as string}`) : hashed(row);
      fingerprint += hash;
      chunker?.add(row[chunkKey?.index ?? 0], hash);
    }
    for (const index of zeroDateColumns) {
      const value = row[index];
      if (typeof value === "string" && isZeroDate(value)) {
        row[index] = null;
        stats.zeroDates++;
      }
    }
    for (const index of floatColumns) {
      const value = row[index];
      if (typeof value === "string") row[index] = Number(value);
    }
  };
  const onRow = (row: unknown[]) => {
    received++;
    prepare(row);
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
  /** After the last row: the snapshot ended, the figures complete. */
  const finish = async () => {
    if (snapshot) {
      await finishSnapshot(pooled, idleMs).catch((error) => {
        throw mapMysqlError(error, query.context);
      });
    }
    if (hashed) stats.fingerprint = fingerprint.toString();
    const chunks = chunker?.chunks();
    if (chunks) stats.chunks = chunks;
  };
  let complete = false;
  connection.on("error", onLost);
  connection.on("end", onLost);
  try {
    if (snapshot && statement.pages) {
      for (const page of statement.pages) {
        const rows = await pooled
          .query({ sql: page.sql, rowsAsArray: true, timeoutMs: idleMs }, [...page.values])
          .then(([answer]) => answer as unknown as unknown[][])
          .catch((error: unknown) => {
            throw mapMysqlError(error, query.context);
          });
        for (const row of rows) prepare(row);
        stats.rows += rows.length;
        stats.bytes = bytesSoFar();
        if (rows.length > 0) yield rows;
      }
      await finish();
      complete = true;
      return;
    }
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
        await finish();
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
