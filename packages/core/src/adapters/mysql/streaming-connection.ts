/**
 * mysql2's callback-style connection, as far as streaming uses it. Its
 * typings call `PoolConnection.connection` a promise connection, but at run
 * time it is this one.
 */
export interface StreamingConnection {
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

export interface QueryEvents {
  on(event: "result", listener: (row: unknown[]) => void): QueryEvents;
  on(event: "error", listener: (error: unknown) => void): QueryEvents;
  on(event: "end", listener: () => void): QueryEvents;
}

/** The connection closed under the stream without an error of its own (the server ended it). */
export function connectionLost(): Error {
  return Object.assign(new Error("Connection lost: the server closed the connection mid-stream"), {
    code: "PROTOCOL_CONNECTION_LOST",
    fatal: true,
  });
}

/** A stream that heard nothing for MYSQL_STREAM_IDLE_SECONDS, as mapMysqlError reads it: retryable. */
export function idleTimeout(ms: number): Error {
  return Object.assign(
    new Error(
      `no data from MySQL for ${ms / 1000} s while streaming rows (MYSQL_STREAM_IDLE_SECONDS); the connection was closed`,
    ),
    { code: "PROTOCOL_SEQUENCE_TIMEOUT", fatal: true },
  );
}
