import type { Destination } from "../../model/destination";
import { RUN_COUNT_COLUMNS, type RunRow } from "../warehouse/run-record-rows";
import { type BigQueryStatement, tablePath } from "./bigquery-queries";

/** The run history table's columns (see run-record-rows.ts): the counts are INT64, the rest text and instants. */
export const RUN_FIELDS = [
  { name: "run_id", type: "STRING", mode: "REQUIRED" },
  { name: "source_table", type: "STRING", mode: "REQUIRED" },
  { name: "mode", type: "STRING", mode: "REQUIRED" },
  { name: "policy", type: "STRING", mode: "NULLABLE" },
  { name: "result", type: "STRING", mode: "REQUIRED" },
  { name: "started_at", type: "TIMESTAMP", mode: "REQUIRED" },
  { name: "ended_at", type: "TIMESTAMP", mode: "REQUIRED" },
  ...RUN_COUNT_COLUMNS.map((name) => ({ name, type: "INT64", mode: "REQUIRED" })),
  { name: "record", type: "STRING", mode: "REQUIRED" },
  { name: "recorded_at", type: "TIMESTAMP", mode: "REQUIRED" },
];

const counts = RUN_COUNT_COLUMNS.join(", ");
const countParams = RUN_COUNT_COLUMNS.map((name) => `@${name}`).join(", ");

/**
 * The run history's statements, on its table at `runs` (a destination), as
 * bigquery-queries.ts writes the others: the adapter sends them and the
 * in-memory double recognises them by the same text.
 */
export const runRecordQueries = {
  /** Appends one finished run; no policy is written as NULL. */
  insert(runs: Destination, defaultProject: string, row: RunRow): BigQueryStatement {
    return {
      query:
        `INSERT INTO ${tablePath(runs, defaultProject)} (run_id, source_table, mode, policy, result, started_at, ended_at, ${counts}, record, recorded_at) ` +
        `VALUES (@run_id, @source_table, @mode, NULLIF(@policy, ''), @result, @started_at, @ended_at, ${countParams}, @record, CURRENT_TIMESTAMP())`,
      params: {
        run_id: row.run_id,
        source_table: row.source_table,
        mode: row.mode,
        policy: row.policy,
        result: row.result,
        started_at: row.started_at,
        ended_at: row.ended_at,
        ...Object.fromEntries(RUN_COUNT_COLUMNS.map((name) => [name, String(Math.trunc(row.counts[name]))])),
        record: row.record,
      },
      types: {
        ...Object.fromEntries(
          ["run_id", "source_table", "mode", "policy", "result", "record"].map((name) => [name, "STRING"]),
        ),
        started_at: "TIMESTAMP",
        ended_at: "TIMESTAMP",
        ...Object.fromEntries(RUN_COUNT_COLUMNS.map((name) => [name, "INT64"])),
      },
    };
  },
  /** The latest `limit` runs, of `table` unless it is "", newest start first. */
  latest(runs: Destination, defaultProject: string, table: string, limit: number): BigQueryStatement {
    return {
      query: `SELECT record FROM ${tablePath(runs, defaultProject)} WHERE (@source_table = '' OR source_table = @source_table) ORDER BY started_at DESC, run_id LIMIT @limit`,
      params: { source_table: table, limit: String(Math.trunc(limit)) },
      types: { source_table: "STRING", limit: "INT64" },
    };
  },
};
