import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";

/** Idle connections kept for reuse; more than the worker runs at once gains nothing. */
const IDLE_CONNECTIONS = 8;

/**
 * Connections to one DuckDB instance, each used by one operation at a time.
 * A connection whose work succeeded goes back among a few idle ones for the
 * next operation; one whose work failed is closed, so no half-ended
 * transaction is ever reused.
 */
export interface ConnectionPool {
  /** Runs `work` on an idle connection, or on a new one when none is idle. */
  withConnection<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T>;
  /** Closes the idle connections; a connection still in use is closed when its work ends. */
  close(): void;
}

export function createConnectionPool(
  instance: DuckDBInstance,
  options: { readonly idleConnections?: number } = {},
): ConnectionPool {
  const keep = options.idleConnections ?? IDLE_CONNECTIONS;
  const idle: DuckDBConnection[] = [];
  let closed = false;

  return {
    async withConnection<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
      const connection = idle.pop() ?? (await instance.connect());
      let result: T;
      try {
        result = await work(connection);
      } catch (error) {
        connection.closeSync();
        throw error;
      }
      if (closed || idle.length >= keep) connection.closeSync();
      else idle.push(connection);
      return result;
    },

    close() {
      closed = true;
      for (const connection of idle.splice(0)) connection.closeSync();
    },
  };
}
