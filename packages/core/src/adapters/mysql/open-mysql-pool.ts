import type { PoolOptions } from "mysql2/promise";
import type { Config } from "../../config";
import type { CloudSqlConnector, CloudSqlSettings } from "./cloud-sql-options";
import { createMysqlPool, type MysqlPool } from "./create-mysql-pool";
import type { MysqlConnectionOptions } from "./mysql-connection-options";
import { type MysqlTlsSettings, mysqlTlsOptions } from "./mysql-tls-options";

export type { MysqlConnectionOptions } from "./mysql-connection-options";

/** How the source is reached, beyond MYSQL_URL: `config.mysql` carries both. */
export interface MysqlConnectionSettings {
  readonly tls: MysqlTlsSettings;
  readonly cloudSql?: CloudSqlSettings | undefined;
}

/**
 * The production additions to the MySQL pool options: the Cloud SQL
 * connector when CLOUD_SQL_INSTANCE is set (loaded only then), else TLS from
 * MYSQL_TLS_CA / MYSQL_TLS_REJECT_UNAUTHORIZED (nothing when neither is set).
 * Pass `config.mysql`.
 */
export async function mysqlConnectionOptions(
  settings: MysqlConnectionSettings,
  connector?: CloudSqlConnector,
): Promise<MysqlConnectionOptions> {
  if (settings.cloudSql) {
    const { cloudSqlOptions } = await import("./cloud-sql-options");
    return cloudSqlOptions(settings.cloudSql, connector);
  }
  return { options: mysqlTlsOptions(settings.tls), async close() {} };
}

/**
 * The source's pool as configured: MYSQL_URL and MYSQL_PASSWORD, through the
 * Cloud SQL connector or with TLS as mysqlConnectionOptions says, every
 * statement bounded by MYSQL_QUERY_TIMEOUT_SECONDS and every streamed read by
 * MYSQL_STREAM_IDLE_SECONDS (see MysqlTimeouts). Ending the pool also releases
 * the connector. `extra` adds pool options such as
 * `connectionLimit`.
 */
export async function openMysqlPool(config: Config, extra: Partial<PoolOptions> = {}): Promise<MysqlPool> {
  const connection = await mysqlConnectionOptions(config.mysql);
  const pool = createMysqlPool(config.mysql, { ...connection.options, ...extra });
  return {
    ...(pool.timeouts ? { timeouts: pool.timeouts } : {}),
    query: (options, values) => pool.query(options, values),
    getConnection: () => pool.getConnection(),
    async end() {
      try {
        await pool.end();
      } finally {
        await connection.close();
      }
    },
  };
}
