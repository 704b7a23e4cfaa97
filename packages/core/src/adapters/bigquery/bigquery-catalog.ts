import type { TableMetadata } from "@google-cloud/bigquery";
import { RefusalError } from "../../errors";
import { type Destination, formatDestination } from "../../model/destination";
import type { TableSchema } from "../../model/table-schema";
import type { BigQueryClient, BigQueryTableHandle } from "./bigquery-client";
import { isAlreadyExists, isNotFound } from "./bigquery-errors";
import { type BigQueryField, bigQueryFields, planSchema } from "./bigquery-types";

export interface BigQueryCatalogOptions {
  readonly client: BigQueryClient;
  /** Project of destinations that name none. */
  readonly project: string;
  /** Location of new datasets and of every request. */
  readonly location: string;
}

/** The destination tables of a BigQuery warehouse: finding them, and making them fit the source. */
export interface BigQueryCatalog {
  /** The destination's table, or another table of its dataset by `id` (a partition, `table$YYYYMMDD`). */
  tableOf(destination: Destination, id?: string): BigQueryTableHandle;
  /** The table's metadata; undefined when it does not exist. Creates nothing. */
  readTable(destination: Destination): Promise<TableMetadata | undefined>;
  /**
   * Makes the table fit the source: creates it (and its dataset) when missing,
   * partitioned by DAY on `filterColumn`, adds new source columns, and throws
   * RefusalError on another partitioning or an incompatible column.
   * Returns the schema loads send.
   */
  prepareTable(
    destination: Destination,
    schema: TableSchema,
    filterColumn: string,
  ): Promise<readonly BigQueryField[]>;
  /** Creates the table (and its dataset) when missing; an existing one is left as it is. */
  createTable(destination: Destination, fields: readonly BigQueryField[], shape: TableShape): Promise<void>;
}

/** How a new table is made: partitioned by DAY on a column, or not; and what it is for. */
export interface TableShape {
  readonly partitionBy?: string;
  readonly description: string;
}

/** The table catalog of createBigQueryWarehouse (as duckdb-catalog.ts is DuckDB's). BigQuery errors pass through unmapped. */
export function createBigQueryCatalog(options: BigQueryCatalogOptions): BigQueryCatalog {
  const { client, project, location } = options;

  function datasetOf(destination: Destination) {
    return client.dataset(destination.dataset, { projectId: destination.project ?? project, location });
  }

  function tableOf(destination: Destination, id = destination.table): BigQueryTableHandle {
    return datasetOf(destination).table(id, { location });
  }

  async function readTable(destination: Destination): Promise<TableMetadata | undefined> {
    try {
      const [metadata] = await tableOf(destination).getMetadata();
      return metadata as TableMetadata;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async function createDataset(destination: Destination): Promise<void> {
    try {
      await client.createDataset(destination.dataset, {
        location,
        projectId: destination.project ?? project,
      });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  }

  async function createTable(
    destination: Destination,
    fields: readonly BigQueryField[],
    shape: TableShape,
    datasetChecked = false,
  ): Promise<void> {
    try {
      await datasetOf(destination).createTable(destination.table, {
        schema: { fields: fields.map((field) => ({ ...field })) },
        ...(shape.partitionBy ? { timePartitioning: { type: "DAY", field: shape.partitionBy } } : {}),
        description: shape.description,
      });
    } catch (error) {
      if (isNotFound(error) && !datasetChecked) {
        await createDataset(destination);
        return createTable(destination, fields, shape, true);
      }
      if (!isAlreadyExists(error)) throw error;
    }
  }

  async function prepareTable(
    destination: Destination,
    schema: TableSchema,
    filterColumn: string,
  ): Promise<readonly BigQueryField[]> {
    const wanted = bigQueryFields(schema.name, schema.columns);
    let current = await readTable(destination);
    if (!current) {
      await createTable(destination, wanted, {
        partitionBy: filterColumn,
        description: "Rows archived by table-archiver, one DAY partition per copied day.",
      });
      current = await readTable(destination);
      if (!current)
        throw new RefusalError(`${formatDestination(destination)} vanished right after it was created`);
    }
    checkPartitioning(destination, current, filterColumn);
    const plan = planSchema((current.schema?.fields ?? []) as BigQueryField[], wanted);
    if (plan.conflicts.length > 0) {
      throw new RefusalError(
        `${formatDestination(destination)} cannot take the rows of ${schema.name} without changing values: ${plan.conflicts.join("; ")}. Change the BigQuery column by hand or pick a new destination table.`,
      );
    }
    if (plan.added.length > 0) {
      await tableOf(destination).setMetadata({
        schema: { fields: plan.fields.map((field) => ({ ...field })) },
      });
    }
    return plan.fields;
  }

  return {
    tableOf,
    readTable,
    prepareTable,
    createTable: (destination, fields, shape) => createTable(destination, fields, shape),
  };
}

function checkPartitioning(destination: Destination, metadata: TableMetadata, filterColumn: string): void {
  const partitioning = metadata.timePartitioning;
  if (partitioning?.type !== "DAY" || partitioning.field?.toLowerCase() !== filterColumn.toLowerCase()) {
    const found = partitioning ? `${partitioning.type} on ${partitioning.field ?? "ingestion time"}` : "none";
    throw new RefusalError(
      `${formatDestination(destination)} must be partitioned by DAY on ${filterColumn} (found: ${found}); days are replaced partition by partition`,
    );
  }
}
