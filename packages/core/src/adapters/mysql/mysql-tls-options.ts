import { readFileSync } from "node:fs";
import type { PoolOptions } from "mysql2/promise";
import { ConfigError } from "../../errors";

/** `config.mysql.tls`: MYSQL_TLS_CA (`ca`) and MYSQL_TLS_REJECT_UNAUTHORIZED (`rejectUnauthorized`). */
export interface MysqlTlsSettings {
  readonly ca?: string | undefined;
  readonly rejectUnauthorized: boolean;
}

/**
 * mysql2's `ssl` option from MYSQL_TLS_CA and MYSQL_TLS_REJECT_UNAUTHORIZED:
 * - a CA (PEM text, or the path of a PEM file): TLS, verifying the server
 *   against that CA unless MYSQL_TLS_REJECT_UNAUTHORIZED=false;
 * - no CA and MYSQL_TLS_REJECT_UNAUTHORIZED=false: TLS that encrypts but does
 *   not check who answers (for servers with self-signed certificates);
 * - neither: no option, so the connection is as MYSQL_URL says.
 * PEM text whose line breaks arrived as `\n` (common in secret stores and
 * .env files) is repaired. An unreadable CA file is a ConfigError.
 */
export function mysqlTlsOptions(
  settings: MysqlTlsSettings,
  readFile: (path: string) => string = (path) => readFileSync(path, "utf8"),
): Pick<PoolOptions, "ssl"> {
  const { ca, rejectUnauthorized } = settings;
  if (ca === undefined || ca.trim() === "") return rejectUnauthorized ? {} : { ssl: { rejectUnauthorized } };
  return { ssl: { ca: readCa(ca, readFile), rejectUnauthorized } };
}

function readCa(value: string, readFile: (path: string) => string): string {
  if (value.includes("-----BEGIN")) return value.includes("\n") ? value : value.replaceAll("\\n", "\n");
  try {
    const text = readFile(value);
    if (!text.includes("-----BEGIN")) throw new Error("not a PEM file");
    return text;
  } catch (error) {
    throw new ConfigError(
      `invalid configuration: MYSQL_TLS_CA: cannot read a PEM certificate from ${value} (${(error as Error).message})`,
      {
        field: "MYSQL_TLS_CA",
        cause: error,
      },
    );
  }
}
