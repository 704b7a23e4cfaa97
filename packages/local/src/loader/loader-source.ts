import { ConfigError } from "@table-archiver/core";
import { type MysqlPool, mapMysqlError, quoteIdentifier } from "@table-archiver/core/mysql";
import type { LocalSettings } from "../config/load-local-config";

/**
 * What the loader reads (the query layer of the local deployment): one SQL
 * statement and how each row names its hash field.
 */
export interface LoaderSource {
  readonly sql: string;
  /** Columns whose values make the field name, or "first" for the result's first column. */
  readonly key: readonly string[] | "first";
  /** The variable that defines the source, for error messages. */
  readonly variable: "LOADER_QUERY" | "LOADER_TABLE";
}

const PRIMARY_KEY_SQL = `SELECT t.TABLE_NAME, s.COLUMN_NAME
  FROM information_schema.TABLES t
  LEFT JOIN information_schema.STATISTICS s
    ON s.TABLE_SCHEMA = t.TABLE_SCHEMA AND s.TABLE_NAME = t.TABLE_NAME AND s.INDEX_NAME = 'PRIMARY'
  WHERE t.TABLE_SCHEMA = DATABASE() AND t.TABLE_NAME = ?
  ORDER BY s.SEQ_IN_INDEX`;

/**
 * LOADER_QUERY when set (its first column names the field); otherwise every
 * row of LOADER_TABLE (default `transportitas`), keyed by its primary key,
 * which is looked up in information_schema so the table needs no other setup.
 */
export async function resolveLoaderSource(
  pool: MysqlPool,
  loader: LocalSettings["loader"],
): Promise<LoaderSource> {
  if (loader.query !== undefined) return { sql: loader.query, key: "first", variable: "LOADER_QUERY" };
  const table = loader.table;
  let rows: unknown;
  try {
    [rows] = await pool.query({ sql: PRIMARY_KEY_SQL, rowsAsArray: true }, [table]);
  } catch (error) {
    throw mapMysqlError(error, { table });
  }
  const found = rows as [string, string | null][];
  if (found.length === 0) {
    throw new ConfigError(`LOADER_TABLE: table "${table}" does not exist in the database of MYSQL_URL`, {
      field: "LOADER_TABLE",
    });
  }
  const key = found.map(([, column]) => column).filter((column): column is string => column !== null);
  if (key.length === 0) {
    throw new ConfigError(
      `LOADER_TABLE: table "${table}" has no primary key to name the hash fields; add one or set LOADER_QUERY`,
      { field: "LOADER_TABLE" },
    );
  }
  return { sql: `SELECT * FROM ${quoteIdentifier(table)}`, key, variable: "LOADER_TABLE" };
}
