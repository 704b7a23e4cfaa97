import type { Writable } from "node:stream";
import type { JobLoadMetadata, TableMetadata } from "@google-cloud/bigquery";

/**
 * The part of the BigQuery client the warehouse adapter calls, typed by
 * shape: the `BigQuery` object of @google-cloud/bigquery satisfies it as it
 * is, and tests hand the adapter a small double of it instead.
 */
export interface BigQueryClient {
  /**
   * A standard-SQL query job, waited for; resolves to its rows first. With
   * `paging`, to its first page of rows only, and second to how to read the
   * next (the library's `nextQuery`, null after the last page): see
   * BigQueryNextPage.
   */
  query(options: BigQueryQueryOptions, paging?: BigQueryPaging): Promise<readonly [unknown[], ...unknown[]]>;
  dataset(id: string, options: { projectId: string; location: string }): BigQueryDatasetHandle;
  createDataset(id: string, options: { projectId: string; location: string }): Promise<unknown>;
}

export interface BigQueryQueryOptions {
  readonly query: string;
  /** Values by parameter name; DATETIME ones wrapped by `BigQuery.datetime`. */
  readonly params: Record<string, unknown>;
  readonly types: Record<string, string>;
  readonly location: string;
}

/**
 * Rows per page of a query read page by page. A number here also turns off
 * the library's auto-pagination, which would otherwise gather every page
 * into one array before answering.
 */
export interface BigQueryPaging {
  readonly maxResults: number;
}

/**
 * The library's `nextQuery` of a paged query: its job, and where the next
 * page starts (no pageToken while the job is still running: the same page is
 * asked for again). `job.getQueryResults` answers as `query` does with paging.
 */
export interface BigQueryNextPage {
  readonly job: {
    getQueryResults(next: BigQueryNextPage & BigQueryPaging): Promise<readonly [unknown[], ...unknown[]]>;
  };
  readonly pageToken?: string;
}

export interface BigQueryDatasetHandle {
  table(id: string, options: { location: string }): BigQueryTableHandle;
  createTable(id: string, options: TableMetadata): Promise<unknown>;
}

export interface BigQueryTableHandle {
  getMetadata(): Promise<readonly [TableMetadata, ...unknown[]]>;
  setMetadata(metadata: TableMetadata): Promise<unknown>;
  /**
   * The upload of a load job: emits `complete` with the finished job
   * (BigQueryLoadJob) once it is DONE, `error` on any failure.
   */
  createWriteStream(metadata: JobLoadMetadata): Writable;
}

/** What the adapter reads of a finished load job. */
export interface BigQueryLoadJob {
  readonly id?: string | undefined;
  readonly metadata?: { readonly statistics?: { readonly load?: { readonly outputRows?: unknown } } };
}
