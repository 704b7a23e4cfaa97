import type { JobLoadMetadata } from "@google-cloud/bigquery";
import type { CalendarDay } from "../../model/calendar-day";
import type { BigQueryField } from "./bigquery-types";

/** `2024-01-31` -> `20240131`, the id of a DAY partition. */
export function partitionId(day: CalendarDay): string {
  return day.replaceAll("-", "");
}

/** `orders` on 2024-01-31 -> `orders$20240131`: the partition as a load destination. */
export function partitionTableId(table: string, day: CalendarDay): string {
  return `${table}$${partitionId(day)}`;
}

export interface LoadJobInput {
  readonly table: string;
  readonly fields: readonly BigQueryField[];
  readonly filterColumn: string;
  readonly day: CalendarDay;
}

/**
 * The `configuration.load` of the job that replaces one day: the partition is
 * written with WRITE_TRUNCATE, so the job swaps the whole day atomically when
 * it succeeds and leaves it untouched when it fails. Any bad record fails the
 * job (maxBadRecords 0, unknown values refused) instead of being skipped.
 * CREATE_NEVER: ensureTable creates the partitioned table; a table that
 * vanished must not come back unpartitioned. New columns are added by the load
 * itself when the table lags behind the source.
 */
export function loadJobMetadata(input: LoadJobInput): JobLoadMetadata & { jobPrefix: string } {
  return {
    sourceFormat: "NEWLINE_DELIMITED_JSON",
    writeDisposition: "WRITE_TRUNCATE",
    createDisposition: "CREATE_NEVER",
    schema: { fields: input.fields.map((field) => ({ ...field })) },
    schemaUpdateOptions: ["ALLOW_FIELD_ADDITION"],
    timePartitioning: { type: "DAY", field: input.filterColumn },
    maxBadRecords: 0,
    ignoreUnknownValues: false,
    encoding: "UTF-8",
    jobPrefix: `archiver_${input.table}_${partitionId(input.day)}_`,
  };
}
