import { existsSync } from "node:fs";
import { type DuckDBConnection, DuckDBInstance, quotedIdentifier } from "@duckdb/node-api";
import { messageOf } from "@table-archiver/core";
import type { Config } from "@table-archiver/core/config";
import { DAY_RECORD_TABLE } from "@table-archiver/core/duckdb";

/** The demo's table in its DuckDB warehouse file, which may hold other tables. */
export interface DemoWarehouse {
  /** `dataset.table`. */
  readonly table: string;
  /** The file, for messages. */
  readonly describe: string;
  exists(): Promise<boolean>;
  /**
   * Drops the table and the source table's entries of the durable day record
   * (a new run copies afresh); the rest of the file is left as it is.
   */
  drop(): Promise<void>;
  close(): void;
}

/**
 * Opens the demo's warehouse file only if it exists (a missing file holds no
 * table, and is created later by the runtime). The file is closed again
 * before the runtime opens it: DuckDB keeps a file to one opener.
 */
export async function demoWarehouse(
  config: Config,
  destination: string,
  sourceTable: string,
): Promise<DemoWarehouse> {
  if (config.warehouse.kind !== "duckdb") throw new Error("the demo's warehouse is DuckDB");
  const { path, dataset } = config.warehouse;
  const table = `${dataset}.${destination}`;
  let instance: DuckDBInstance | undefined;
  let connection: DuckDBConnection | undefined;
  if (existsSync(path)) {
    try {
      instance = await DuckDBInstance.create(path, {
        autoinstall_known_extensions: "false",
        autoload_known_extensions: "false",
      });
      connection = await instance.connect();
    } catch (error) {
      instance?.closeSync();
      throw new Error(
        `cannot open the warehouse ${path} (${messageOf(error)}); ` +
          "if another process holds it (pnpm dev, pnpm archiver worker), stop it and run the demo again",
      );
    }
  }
  const exists = async () => {
    if (!connection) return false;
    const reader = await connection.runAndReadAll(
      "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = $1 AND table_name = $2",
      [dataset, destination],
    );
    return Number(reader.getRows()[0]?.[0] ?? 0) > 0;
  };
  return {
    table,
    describe: path,
    exists,
    async drop() {
      if (!connection || !(await exists())) return;
      // The catalog spelled out, as the warehouse does: a dataset named like the file would be ambiguous.
      const catalog = String((await connection.runAndReadAll("SELECT current_database()")).getRows()[0]?.[0]);
      const name = (table: string) =>
        [catalog, dataset, table].map((part) => quotedIdentifier(part)).join(".");
      await connection.run(`DROP TABLE ${name(destination)}`);
      await connection
        .run(`DELETE FROM ${name(DAY_RECORD_TABLE)} WHERE source_table = $1`, [sourceTable])
        .catch(() => {
          // No record table yet: nothing to forget.
        });
      await connection.run("CHECKPOINT");
    },
    close() {
      connection?.closeSync();
      instance?.closeSync();
    },
  };
}
