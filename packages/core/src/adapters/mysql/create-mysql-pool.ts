import mysql, { type PoolConnection, type PoolOptions } from "mysql2/promise";
import type { Config } from "../../config";
import { MYSQL_TIMEOUT_DEFAULTS } from "../../config/env-schema";

/** Options of one query as this adapter sends them. */
export interface MysqlQueryOptions {
  readonly sql: string;
  readonly rowsAsArray?: boolean;
  /** A shorter limit than the pool's `queryMs`, for a statement known to be quick. */
  readonly timeoutMs?: number;
}

/**
 * The part of a mysql2 promise pool connection the adapters use, written
 * structurally so code that holds a pool never has to import mysql2.
 */
export interface MysqlPoolConnection {
  query(options: MysqlQueryOptions, values?: unknown[]): Promise<[unknown, unknown]>;
  /** Gives the connection back to the pool; only when it has no query in flight. */
  release(): void;
  /** Closes the connection and drops it from the pool. */
  destroy(): void;
  /** The callback-style connection underneath; streaming reads drive it directly. */
  readonly connection: object;
}

/** The part of a mysql2 promise pool the adapters use. */
export interface MysqlPool {
  query(options: MysqlQueryOptions, values?: unknown[]): Promise<[unknown, unknown]>;
  getConnection(): Promise<MysqlPoolConnection>;
  end(): Promise<void>;
  /** The pool's time limits; a pool without them (a test double) is read with MYSQL_TIMEOUT_DEFAULTS. */
  readonly timeouts?: MysqlTimeouts;
}

/**
 * How long the source may keep the archiver waiting. A statement past its
 * limit, or a streamed read that hears nothing, fails with a retryable error
 * and its connection is closed: a dead server, or a network path that drops
 * packets without closing the connection, can otherwise hold a task forever.
 */
export interface MysqlTimeouts {
  /**
   * MYSQL_QUERY_TIMEOUT_SECONDS: longest one statement may take, from the
   * call to its answer (a streamed read's rows excepted). Sized for a large
   * day's single-statement reads (its key bounds, its fingerprint, planning
   * its chunks), which scan the whole day.
   */
  readonly queryMs: number;
  /**
   * MYSQL_STREAM_IDLE_SECONDS: longest a streamed read, ready for
   * rows, hears nothing from the server. Time the consumer spends on a batch
   * does not count. A day read by a full scan of a large table can be quiet
   * for as long as the scan takes to reach its rows.
   */
  readonly streamIdleMs: number;
}

/** The pool's settings: MYSQL_URL and MYSQL_PASSWORD, and the time limits (MYSQL_TIMEOUT_DEFAULTS when unset). */
export type MysqlPoolSettings = Pick<Config["mysql"], "url" | "password"> &
  Partial<Pick<Config["mysql"], "queryTimeoutMs" | "streamIdleTimeoutMs">>;

/**
 * Runs first on every new connection. TIMESTAMP columns then read in UTC
 * whatever the server's zone. A streaming read waits while the consumer
 * writes a batch to the warehouse, and the server drops a connection it could
 * not write to for net_write_timeout seconds (60 by default), so streams get
 * at least ten minutes.
 */
const SESSION_SETUP_SQL = "SET time_zone = '+00:00', net_write_timeout = GREATEST(@@net_write_timeout, 600)";

/**
 * Options that make values arrive as the canonical values of their logical
 * type (see LogicalType): dates, decimals and 64-bit integers as strings,
 * JSON as text, never a JS Date or a rounded number. They win over the URL and
 * over `extra`.
 */
const CANONICAL_OPTIONS = {
  timezone: "Z",
  dateStrings: true,
  supportBigNumbers: true,
  bigNumberStrings: true,
  decimalNumbers: false,
  jsonStrings: true,
  charset: "utf8mb4",
  typeCast: true,
} as const satisfies PoolOptions;

/**
 * A mysql2 pool for `config.url`. `config.password` (MYSQL_PASSWORD), when set,
 * replaces the password in the URL. `extra` adds pool options such as
 * `connectionLimit`; it cannot change how values are decoded. Every statement,
 * on the pool or on a connection taken from it, is bounded by
 * `config.queryTimeoutMs` (see MysqlTimeouts).
 */
export function createMysqlPool(config: MysqlPoolSettings, extra: Partial<PoolOptions> = {}): MysqlPool {
  const timeouts: MysqlTimeouts = {
    queryMs: config.queryTimeoutMs ?? MYSQL_TIMEOUT_DEFAULTS.querySeconds * 1000,
    streamIdleMs: config.streamIdleTimeoutMs ?? MYSQL_TIMEOUT_DEFAULTS.streamIdleSeconds * 1000,
  };
  const pool = mysql.createPool({
    uri: withoutCanonicalParameters(config.url),
    ...(config.password ? { password: config.password } : {}),
    ...extra,
    ...CANONICAL_OPTIONS,
  });
  pool.pool.on("connection", (connection) => {
    // Commands on a connection run in order, so this runs before the query
    // that asked for the connection. A connection that cannot be set up would
    // read TIMESTAMPs in the wrong zone: close it, and that query fails.
    connection.query(SESSION_SETUP_SQL, (error) => {
      if (error) connection.destroy();
    });
  });
  return {
    timeouts,
    async query(options, values) {
      const connection = await pool.getConnection();
      try {
        return await timedQuery(connection, options, values, timeouts.queryMs);
      } catch (error) {
        // As mysql2's own pool.query: a server that turned read-only (a failover) is left for a new connection.
        if (isReadOnlyError(error)) connection.destroy();
        throw error;
      } finally {
        // A no-op once the connection was destroyed (timed out, or lost).
        connection.release();
      }
    },
    async getConnection() {
      const connection = await pool.getConnection();
      return {
        query: (options, values) => timedQuery(connection, options, values, timeouts.queryMs),
        release: () => connection.release(),
        destroy: () => connection.destroy(),
        connection: connection.connection,
      };
    },
    end: () => pool.end(),
  };
}

/**
 * Runs one statement, failing once it has taken `ms`. mysql2's own `timeout`
 * is not used: it starts only when the statement reaches the server (not
 * while it waits behind the connection's setup) and leaves the connection
 * open and checked out, its statement still running. Here the connection is
 * closed instead (the server then drops the statement and rolls back any
 * transaction), so it can neither serve another query nor hold its pool slot.
 */
function timedQuery(
  connection: PoolConnection,
  options: MysqlQueryOptions,
  values: unknown[] | undefined,
  ms: number,
): Promise<[unknown, unknown]> {
  const { timeoutMs, ...statement } = options;
  const limit = Math.min(ms, timeoutMs ?? ms);
  const running = connection.query(statement, values) as Promise<[unknown, unknown]>;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      closeConnection(connection);
      reject(statementTimeout(limit));
    }, limit);
    timer.unref();
  });
  // Once the deadline has answered, the statement's own end (a closed connection) says nothing new.
  running.catch(() => {});
  return Promise.race([running, deadline]).finally(() => clearTimeout(timer));
}

/** Drops the connection from the pool and closes its socket at once (destroy() alone only half-closes it). */
function closeConnection(connection: PoolConnection): void {
  connection.destroy();
  (connection.connection as { stream?: { destroy?(): void } }).stream?.destroy?.();
}

/** A statement past MYSQL_QUERY_TIMEOUT_SECONDS, as mapMysqlError reads it: the connection's fault, retryable. */
function statementTimeout(ms: number): Error {
  return Object.assign(
    new Error(
      `MySQL statement still running after ${ms / 1000} s (MYSQL_QUERY_TIMEOUT_SECONDS); its connection was closed`,
    ),
    { code: "PROTOCOL_SEQUENCE_TIMEOUT", fatal: true },
  );
}

/** ER_OPTION_PREVENTS_STATEMENT, ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION, ER_READ_ONLY_MODE. */
function isReadOnlyError(error: unknown): boolean {
  const errno = (error as { errno?: unknown } | null)?.errno;
  return errno === 1290 || errno === 1792 || errno === 1836;
}

/** mysql2 lets URL parameters fill options that are unset or false; decoding options must not come from there. */
function withoutCanonicalParameters(url: string): string {
  const parsed = new URL(url);
  for (const key of Object.keys(CANONICAL_OPTIONS)) parsed.searchParams.delete(key);
  return parsed.toString();
}
