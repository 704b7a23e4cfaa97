import { AuthTypes, Connector, IpAddressTypes } from "@google-cloud/cloud-sql-connector";
import type { PoolOptions } from "mysql2/promise";
import type { Config } from "../../config";
import { TransientError } from "../../errors";
import type { MysqlConnectionOptions } from "./mysql-connection-options";

/** CLOUD_SQL_INSTANCE (`instance`), CLOUD_SQL_IAM_AUTH (`iamAuth`) and CLOUD_SQL_IP_TYPE (`ipType`), parsed. */
export type CloudSqlSettings = NonNullable<Config["mysql"]["cloudSql"]>;

/** The part of the Cloud SQL connector used here, so tests can stand in for it. */
export interface CloudSqlConnector {
  getOptions(options: {
    instanceConnectionName: string;
    ipType: IpAddressTypes;
    authType: AuthTypes;
  }): Promise<{ stream: () => unknown }>;
  close(): void;
}

/**
 * Connections through the Cloud SQL connector to CLOUD_SQL_INSTANCE
 * (`project:region:instance`) over the CLOUD_SQL_IP_TYPE address: TLS with an
 * ephemeral certificate, authorised by IAM (roles/cloudsql.client). With
 * CLOUD_SQL_IAM_AUTH the database login is IAM database authentication too:
 * MYSQL_URL then names the IAM database user (a service account's email
 * without `@PROJECT.iam.gserviceaccount.com`) and no password. The stream
 * factory replaces MYSQL_URL's host and port. `close()` stops the connector's
 * certificate refresh; call it after the pool has ended.
 */
export async function cloudSqlOptions(
  settings: CloudSqlSettings,
  connector: CloudSqlConnector = new Connector(),
): Promise<MysqlConnectionOptions> {
  try {
    const driver = await connector.getOptions({
      instanceConnectionName: settings.instance,
      ipType: IpAddressTypes[settings.ipType],
      authType: settings.iamAuth ? AuthTypes.IAM : AuthTypes.PASSWORD,
    });
    return {
      options: { stream: driver.stream as PoolOptions["stream"] },
      async close() {
        connector.close();
      },
    };
  } catch (error) {
    connector.close();
    throw new TransientError(
      `Cloud SQL connector could not prepare connections to ${settings.instance}: ${(error as Error).message} (it needs roles/cloudsql.client and the Cloud SQL Admin API)`,
      { cause: error },
    );
  }
}
