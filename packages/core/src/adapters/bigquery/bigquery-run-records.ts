import type { DatasetRef } from "../../ports/day-record";
import type { RunRecordStore } from "../../ports/run-history";
import { DEFAULT_RUN_LIMIT, RUN_TABLE, runsOf, toRunRow } from "../warehouse/run-record-rows";
import type { BigQueryCatalog } from "./bigquery-catalog";
import { mapBigQueryError, readOrMissing } from "./bigquery-errors";
import type { BigQueryStatement } from "./bigquery-queries";
import { RUN_FIELDS, runRecordQueries } from "./bigquery-run-queries";

export interface BigQueryRunRecordsOptions {
  readonly catalog: Pick<BigQueryCatalog, "createTable">;
  readonly project: string;
  readonly query: (sql: BigQueryStatement) => Promise<Record<string, unknown>[]>;
}

/**
 * The run history on BigQuery: the table `_archiver_runs` of each dataset
 * (unpartitioned, a row per finished run), created on first use. A run is
 * appended with a DML INSERT, a query job, as `_archiver_days` entries are:
 * a load job would spend the per-table daily load-job quota the copies
 * need, and a streaming insert would leave the row in the streaming buffer,
 * where a DML statement can neither change nor delete it for up to 90
 * minutes and a read right after the run may not see it yet.
 */
export function createBigQueryRunRecords(options: BigQueryRunRecordsOptions): RunRecordStore {
  const { catalog, project, query } = options;
  const ensured = new Set<string>();
  const at = (dataset: DatasetRef) => ({ ...dataset, table: RUN_TABLE });
  const context = (dataset: DatasetRef, action: string) => ({
    action,
    project: dataset.project ?? project,
    dataset: dataset.dataset,
  });

  return {
    async recordRun(dataset, run) {
      const key = `${dataset.project ?? project}.${dataset.dataset}`;
      try {
        if (!ensured.has(key)) {
          await catalog.createTable(at(dataset), RUN_FIELDS, {
            description:
              "table-archiver's history of finished runs (one row per table and mode per message).",
          });
          ensured.add(key);
        }
        await query(runRecordQueries.insert(at(dataset), project, toRunRow(run)));
      } catch (error) {
        throw mapBigQueryError(
          error,
          context(dataset, `recording the ${run.mode} run ${run.id} of ${run.table}`),
        );
      }
    },

    async runs(dataset, options = {}) {
      return readOrMissing([], context(dataset, "reading the run history"), async () => {
        const statement = runRecordQueries.latest(
          at(dataset),
          project,
          options.table ?? "",
          options.limit ?? DEFAULT_RUN_LIMIT,
        );
        const rows = await query(statement);
        return runsOf(
          rows.map(({ record }) => String(record)),
          `${dataset.dataset}.${RUN_TABLE}`,
        );
      });
    },
  };
}
