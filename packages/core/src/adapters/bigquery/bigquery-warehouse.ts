import { BigQuery } from "@google-cloud/bigquery";
import { RefusalError } from "../../errors";
import { emptyDayFigures, emptyDaysFigures } from "../../model/day-figures";
import { type Destination, formatDestination } from "../../model/destination";
import type { Row, TableSchema } from "../../model/table-schema";
import { formatWarehouseDay, type WarehouseDay } from "../../model/warehouse-day";
import type { Warehouse } from "../../ports/warehouse";
import { refuseToShrink } from "../warehouse/shrink-refusal";
import { createBigQueryCatalog } from "./bigquery-catalog";
import type { BigQueryClient, BigQueryLoadJob } from "./bigquery-client";
import { createBigQueryDayRecords } from "./bigquery-day-records";
import { isNotFound, mapBigQueryError, readOrMissing } from "./bigquery-errors";
import { queryPages } from "./bigquery-pages";
import {
  type BigQueryStatement,
  dayFiguresQuery,
  dayKeysQuery,
  daysFiguresQuery,
  parseDayFigures,
  rowCountQuery,
} from "./bigquery-queries";
import { createBigQueryRunRecords } from "./bigquery-run-records";
import type { BigQueryField } from "./bigquery-types";
import { loadJobMetadata, partitionTableId } from "./load-job";
import { createNdjsonEncoder } from "./ndjson-encoder";
import { streamLoad } from "./stream-load";

export interface BigQueryWarehouseOptions {
  /** Project that runs the jobs, and holds destinations that name no project (BIGQUERY_PROJECT). */
  readonly project: string;
  /** Location of new datasets and of every job (BIGQUERY_LOCATION). */
  readonly location: string;
  /** A ready client (tests pass a double or one on a local stand-in); `project` and `location` then only name things. */
  readonly client?: BigQueryClient;
}

/**
 * The warehouse on BigQuery. Each destination is a table partitioned by DAY on
 * the filter column (DATETIME), created from the source schema on first use.
 * A day is replaced by one load job into the partition `table$YYYYMMDD` with
 * WRITE_TRUNCATE, fed by streaming the day's rows as newline-delimited JSON
 * through `table.createWriteStream`, batch by batch with backpressure. The job
 * swaps the partition only when it succeeds, so a failure anywhere leaves the
 * day as it was. Day figures come from a query restricted to the partition.
 *
 * Needs roles/bigquery.dataEditor on the dataset (or on the project, to create
 * datasets) and roles/bigquery.jobUser on the project.
 */
export function createBigQueryWarehouse(options: BigQueryWarehouseOptions): Warehouse {
  const { project, location } = options;
  const client: BigQueryClient =
    options.client ??
    new BigQuery({
      projectId: project,
      location,
    });

  const catalog = createBigQueryCatalog({ client, project, location });
  const { tableOf, readTable, prepareTable } = catalog;

  function contextOf(destination: Destination, action: string) {
    return { action, project: destination.project ?? project, dataset: destination.dataset };
  }

  /** Rows the day holds now: a replace may not leave it with fewer (see refuseToShrink). */
  async function heldRows(at: WarehouseDay): Promise<number> {
    try {
      return parseDayFigures((await query(dayFiguresQuery(at, project)))[0]).rows;
    } catch (error) {
      if (isNotFound(error)) return 0;
      throw error;
    }
  }

  async function query(sql: BigQueryStatement): Promise<Record<string, unknown>[]>;
  async function query(sql: BigQueryStatement, pageRows: number): Promise<readonly [unknown[], ...unknown[]]>;
  /** Runs `sql`: every row, or with `pageRows` its first page and the way to the next (queryPages). */
  async function query(sql: BigQueryStatement, pageRows?: number) {
    // The client sends a DATETIME parameter's value only when it is wrapped;
    // a plain string goes out as an empty parameterValue.
    const params = Object.fromEntries(
      Object.entries(sql.params).map(([name, value]) => [
        name,
        sql.types[name] === "DATETIME" ? BigQuery.datetime(value) : value,
      ]),
    );
    const options = { query: sql.query, params, types: { ...sql.types }, location };
    if (pageRows !== undefined) return client.query(options, { maxResults: pageRows });
    const [rows] = await client.query(options);
    return rows as Record<string, unknown>[];
  }

  // The fields ensureTable last prepared per destination, filter column and source shape: the copy
  // task's replaceDay, right after its ensureTable, then needs no second read of the table.
  const prepared = new Map<string, readonly BigQueryField[]>();
  const preparedKey = (destination: Destination, schema: TableSchema, filterColumn: string) =>
    JSON.stringify([
      formatDestination(destination),
      filterColumn,
      schema.columns.map((c) => [c.name, c.logicalType]),
    ]);

  /** Loads the day's rows into its partition with WRITE_TRUNCATE (see the comment above). */
  async function loadDay(
    at: WarehouseDay,
    schema: TableSchema,
    batches: AsyncIterable<readonly Row[]>,
  ): Promise<{ readonly rowsWritten: number }> {
    const { destination, filterColumn, day } = at;

    const context = contextOf(destination, `loading ${formatWarehouseDay(at)}`);
    const key = preparedKey(destination, schema, filterColumn);
    try {
      const fields = prepared.get(key) ?? (await prepareTable(destination, schema, filterColumn));
      const partition = tableOf(destination, partitionTableId(destination.table, day));
      const metadata = loadJobMetadata({ table: destination.table, fields, filterColumn, day });
      const held = await heldRows(at);
      const job = await streamLoad(
        partition,
        metadata,
        refuseToShrink(formatWarehouseDay(at), held, batches),
        createNdjsonEncoder(schema.name, schema.columns),
      );
      if (!job) return { rowsWritten: 0 };
      return { rowsWritten: outputRows(job, context.action) };
    } catch (error) {
      // The table may have changed under the cached fields (dropped, altered): the retry reads it again.
      prepared.delete(key);
      throw mapBigQueryError(error, context);
    }
  }

  const dayRecords = createBigQueryDayRecords({ catalog, project, query });

  return {
    ...dayRecords,
    ...createBigQueryRunRecords({ catalog, project, query }),

    async ensureTable(destination, schema, filterColumn) {
      const key = preparedKey(destination, schema, filterColumn);
      prepared.delete(key);
      try {
        prepared.set(key, await prepareTable(destination, schema, filterColumn));
      } catch (error) {
        throw mapBigQueryError(error, contextOf(destination, `preparing ${formatDestination(destination)}`));
      }
    },

    async replaceDay(at, schema, batches, _keyColumn, record) {
      const written = await loadDay(at, schema, batches);
      // A load job has no transaction to share: the entry follows it (see Warehouse.replaceDay).
      if (record) await dayRecords.recordDay(at.destination, await record(written));
      return written;
    },

    async dayFigures(at, keyColumn) {
      const context = contextOf(at.destination, `counting ${formatWarehouseDay(at)}`);
      return readOrMissing(emptyDayFigures(keyColumn), context, async () =>
        parseDayFigures((await query(dayFiguresQuery(at, project, keyColumn)))[0], keyColumn),
      );
    },

    async daysFigures(at, keyColumn) {
      const figures = emptyDaysFigures(at.days, keyColumn);
      if (at.days.length === 0) return figures;
      const action = `counting ${formatDestination(at.destination)} on ${at.days.length} days`;
      return readOrMissing(figures, contextOf(at.destination, action), async () => {
        for (const row of await query(daysFiguresQuery(at, project, keyColumn))) {
          const day = String(row.day);
          if (figures.has(day)) figures.set(day, parseDayFigures(row, keyColumn));
        }
        return figures;
      });
    },

    async *dayKeys(at, keyColumn, pageKeys) {
      if (!Number.isSafeInteger(pageKeys) || pageKeys < 1) {
        throw new RangeError(`pageKeys must be a positive integer, got ${pageKeys}`);
      }
      const context = contextOf(at.destination, `listing the keys of ${formatWarehouseDay(at)}`);
      const statement = dayKeysQuery(at, project, keyColumn);
      let answered = false;
      const run = async () => {
        const answer = await query(statement, pageKeys);
        answered = true;
        return answer;
      };
      try {
        // One query job; its result is read a page at a time, so the day's keys are never all in memory.
        for await (const rows of queryPages(run, { maxResults: pageKeys })) {
          const keys = (rows as Record<string, unknown>[]).flatMap(({ k }) =>
            k === null || k === undefined ? [] : [String(k)],
          );
          if (keys.length > 0) yield keys;
        }
      } catch (error) {
        // Only the query's own 404 is an absent table, which lists no keys: a page that fails later
        // (a job gone, say) fails the listing, or the re-copy would take a part of the keys for all.
        if (!answered && isNotFound(error)) return;
        throw mapBigQueryError(error, context);
      }
    },

    async hasTable(destination) {
      try {
        return (await readTable(destination)) !== undefined;
      } catch (error) {
        throw mapBigQueryError(error, contextOf(destination, `looking up ${formatDestination(destination)}`));
      }
    },

    async countRows(destination) {
      const context = contextOf(destination, `counting ${formatDestination(destination)}`);
      return readOrMissing(0, context, async () =>
        Number((await query(rowCountQuery(destination, project)))[0]?.row_count ?? 0),
      );
    },

    async close() {},
  };
}

function outputRows(job: BigQueryLoadJob, action: string): number {
  const text = job.metadata?.statistics?.load?.outputRows;
  const rows = Number(text);
  if (text === undefined || text === null || !Number.isSafeInteger(rows)) {
    throw new RefusalError(`BigQuery ${action}: job ${job.id} finished without an output row count`);
  }
  return rows;
}
