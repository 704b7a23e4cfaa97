import type { DuckDBConnection } from "@duckdb/node-api";
import type { DatasetRef } from "../../ports/day-record";
import type { RunRecordStore } from "../../ports/run-history";
import {
  DEFAULT_RUN_LIMIT,
  RUN_COUNT_COLUMNS,
  RUN_TABLE,
  runsOf,
  toRunRow,
} from "../warehouse/run-record-rows";
import { type DuckDbTable, qualifiedName, qualifiedSchema, tableColumns } from "./duckdb-catalog";
import type { DuckDbDayRecordsContext } from "./duckdb-day-records";

function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

async function ensureRunTable(connection: DuckDBConnection, table: DuckDbTable): Promise<void> {
  await connection.run(`CREATE SCHEMA IF NOT EXISTS ${qualifiedSchema(table.catalog, table.dataset)}`);
  const counts = RUN_COUNT_COLUMNS.map((name) => `"${name}" BIGINT NOT NULL`).join(", ");
  await connection.run(
    `CREATE TABLE IF NOT EXISTS ${qualifiedName(table)} (
       run_id VARCHAR NOT NULL, source_table VARCHAR NOT NULL, mode VARCHAR NOT NULL, policy VARCHAR,
       result VARCHAR NOT NULL, started_at TIMESTAMPTZ NOT NULL, ended_at TIMESTAMPTZ NOT NULL, ${counts},
       record VARCHAR NOT NULL, recorded_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp)`,
  );
}

/**
 * The run history of a DuckDB warehouse: `_archiver_runs` in each dataset's
 * schema, a row appended per finished run by a plain INSERT (DuckDB has no
 * job quota; the statement commits on its own).
 */
export function createDuckDbRunRecords(
  context: Pick<DuckDbDayRecordsContext, "catalog" | "operation" | "withConnection" | "ddl">,
): RunRecordStore {
  const { catalog, operation, withConnection } = context;
  const tableOf = (at: DatasetRef): DuckDbTable => ({ catalog, dataset: at.dataset, table: RUN_TABLE });
  const made = new Set<string>();
  return {
    recordRun(at, run) {
      const table = tableOf(at);
      return operation("recordRun", async () => {
        const key = at.dataset.toLowerCase();
        if (!made.has(key)) {
          await context.ddl(() => withConnection((connection) => ensureRunTable(connection, table)));
          made.add(key);
        }
        const row = toRunRow(run);
        const policy = row.policy === "" ? "NULL" : literal(row.policy);
        const text = [row.run_id, row.source_table, row.mode].map(literal).join(", ");
        const counts = RUN_COUNT_COLUMNS.map((name) => String(Math.trunc(row.counts[name]))).join(", ");
        await withConnection((connection) =>
          connection.run(
            `INSERT INTO ${qualifiedName(table)} (run_id, source_table, mode, policy, result, started_at, ended_at,
               ${RUN_COUNT_COLUMNS.map((name) => `"${name}"`).join(", ")}, record)
             VALUES (${text}, ${policy}, ${literal(row.result)}, CAST(${literal(row.started_at)} AS TIMESTAMPTZ),
               CAST(${literal(row.ended_at)} AS TIMESTAMPTZ), ${counts}, ${literal(row.record)})`,
          ),
        );
      });
    },
    runs(at, options = {}) {
      const table = tableOf(at);
      const limit = options.limit ?? DEFAULT_RUN_LIMIT;
      return operation("runs", () =>
        withConnection(async (connection) => {
          if ((await tableColumns(connection, table)).length === 0) return [];
          const where = options.table === undefined ? "" : `WHERE source_table = ${literal(options.table)}`;
          const reader = await connection.runAndReadAll(
            `SELECT record FROM ${qualifiedName(table)} ${where} ORDER BY started_at DESC, run_id LIMIT ${Math.trunc(limit)}`,
          );
          return runsOf(
            reader.getRows().map(([record]) => String(record)),
            `${at.dataset}.${RUN_TABLE}`,
          );
        }),
      );
    },
  };
}
