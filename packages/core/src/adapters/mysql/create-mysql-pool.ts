import mysql, { type PoolOptions } from "mysql2/promise";
import type { Config } from "../../config";

/** Options of one query as this adapter sends them. */
export interface MysqlQueryOptions {
  readonly sql: string;
  readonly rowsAsArray?: boolean;
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
}

/**
 * Runs first on every new connection. TIMESTAMP columns then read in UTC
 * whatever the server's zone. A streaming read waits while the consumer
 * writes a batch to the warehouse, and the server drops a connection it could
 * not write to for net_write_timeout seconds (60 by default), so streams get
 * at least ten minutes.
 */
export const SESSION_SETUP_SQL =
  "SET time_zone = '+00:00', net_write_timeout = GREATEST(@@net_write_timeout, 600)";

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
 * `connectionLimit`; it cannot change how values are decoded.
 */
export function createMysqlPool(config: Config["mysql"], extra: Partial<PoolOptions> = {}): MysqlPool {
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
  return pool;
}

/** mysql2 lets URL parameters fill options that are unset or false; decoding options must not come from there. */
function withoutCanonicalParameters(url: string): string {
  const parsed = new URL(url);
  for (const key of Object.keys(CANONICAL_OPTIONS)) parsed.searchParams.delete(key);
  return parsed.toString();
}
