import type { PoolOptions } from "mysql2/promise";

/**
 * How one way of reaching the source (plain TLS, the Cloud SQL connector)
 * shapes the pool: options to merge over the MYSQL_URL ones, and what to
 * release after the pool ended.
 */
export interface MysqlConnectionOptions {
  readonly options: Partial<PoolOptions>;
  close(): Promise<void>;
}
