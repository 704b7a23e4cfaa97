import { addDays, startOfDay } from "../../model/calendar-day";
import { type DayFigures, dayFiguresFrom } from "../../model/day-figures";
import type { Destination } from "../../model/destination";
import { spanOfDays, type WarehouseDay, type WarehouseDays } from "../../model/warehouse-day";
import { bigQueryIdentifier, quotedColumn } from "./bigquery-identifier";

/**
 * Every statement the BigQuery adapter sends, written once: the adapter sends
 * them, and the in-memory test double recognises them by building the same
 * text (testing/memory-bigquery.ts), so a change here reaches both. Every
 * name in them passes bigQueryIdentifier (tablePath, quotedColumn): values
 * are bound as parameters, names cannot be, and one that breaks out of its
 * backticks is refused before the statement exists.
 */

/** A parameterised standard-SQL query as `BigQuery.query` takes it. */
export interface BigQueryStatement {
  readonly query: string;
  readonly params: Readonly<Record<string, string>>;
  readonly types: Readonly<Record<string, string>>;
}

/** `project.dataset.table` quoted for standard SQL, each part checked by bigQueryIdentifier. */
export function tablePath(destination: Destination, defaultProject: string): string {
  const project = bigQueryIdentifier(destination.project ?? defaultProject, "project");
  const dataset = bigQueryIdentifier(destination.dataset, "dataset");
  return `\`${project}.${dataset}.${bigQueryIdentifier(destination.table, "table")}\``;
}

/** Counts every row of the table. */
export function rowCountQuery(destination: Destination, defaultProject: string): BigQueryStatement {
  return {
    query: `SELECT CAST(COUNT(*) AS STRING) AS row_count FROM ${tablePath(destination, defaultProject)}`,
    params: {},
    types: {},
  };
}

/**
 * Counts one day of the table, with key figures when `keyColumn` is given. The
 * day is a range on the partitioning column bound as DATETIME parameters, so
 * BigQuery prunes to the one partition. Every figure comes back as text: sums
 * of 64-bit keys exceed 2^53 and are summed as BIGNUMERIC so they cannot overflow.
 */
export function dayFiguresQuery(
  at: WarehouseDay,
  defaultProject: string,
  keyColumn?: string,
): BigQueryStatement {
  return onDay(`SELECT ${figureColumns(keyColumn)} FROM ${tablePath(at.destination, defaultProject)}`, at);
}

/**
 * `dayFiguresQuery` for several days at once: one row per day that holds
 * rows (column `day`, `YYYY-MM-DD`), over the range from the first day to the
 * last, bound as DATETIME parameters, so BigQuery prunes to those partitions.
 * The caller keeps the days it asked for.
 */
export function daysFiguresQuery(
  at: WarehouseDays,
  defaultProject: string,
  keyColumn?: string,
): BigQueryStatement {
  const span = spanOfDays(at.days);
  if (!span) throw new Error("no days to count");
  const column = quotedColumn(at.filterColumn);
  return {
    query: `SELECT CAST(DATE(${column}) AS STRING) AS day, ${figureColumns(keyColumn)} FROM ${tablePath(at.destination, defaultProject)} WHERE ${column} >= @span_start AND ${column} < @span_end GROUP BY day`,
    params: { span_start: span.start, span_end: span.end },
    types: { span_start: "DATETIME", span_end: "DATETIME" },
  };
}

/** The figures a day's count returns, every one as text (see dayFiguresQuery). */
function figureColumns(keyColumn: string | undefined): string {
  const columns = ["CAST(COUNT(*) AS STRING) AS row_count"];
  if (keyColumn !== undefined) {
    const key = quotedColumn(keyColumn);
    columns.push(
      `CAST(COUNT(${key}) AS STRING) AS key_count`,
      `CAST(COALESCE(SUM(CAST(${key} AS BIGNUMERIC)), 0) AS STRING) AS key_sum`,
      `CAST(MIN(${key}) AS STRING) AS key_min`,
      `CAST(MAX(${key}) AS STRING) AS key_max`,
    );
  }
  return columns.join(", ");
}

/**
 * Lists the keys one day of the table holds, one row each (column `k`), as
 * text: NUMERIC (BIGINT UNSIGNED) and INTEGER keys print as exact decimals.
 * The day is bound as in `dayFiguresQuery`, so BigQuery reads one partition.
 * Ordered by the key's value (not its text), for a re-copy to compare them
 * with the source's rows in that order; read page by page (dayKeys).
 */
export function dayKeysQuery(at: WarehouseDay, defaultProject: string, keyColumn: string): BigQueryStatement {
  const key = quotedColumn(keyColumn);
  const day = onDay(
    `SELECT CAST(${key} AS STRING) AS k FROM ${tablePath(at.destination, defaultProject)}`,
    at,
  );
  return { ...day, query: `${day.query} ORDER BY ${key}` };
}

/** `select` restricted to the day: a range on the partitioning column, bound as DATETIME parameters. */
function onDay(select: string, { filterColumn, day }: WarehouseDay): BigQueryStatement {
  const column = quotedColumn(filterColumn);
  return {
    query: `${select} WHERE ${column} >= @day_start AND ${column} < @next_day_start`,
    params: { day_start: startOfDay(day), next_day_start: startOfDay(addDays(day, 1)) },
    types: { day_start: "DATETIME", next_day_start: "DATETIME" },
  };
}

/** Reads the one row `dayFiguresQuery` returns (or one day's row of `daysFiguresQuery`). */
export function parseDayFigures(
  row: Readonly<Record<string, unknown>> | undefined,
  keyColumn?: string,
): DayFigures {
  return dayFiguresFrom(keyColumn, {
    rows: row?.row_count,
    count: row?.key_count,
    sum: row?.key_sum,
    min: row?.key_min,
    max: row?.key_max,
  });
}

/** One entry of the durable day record (see bigquery-day-records.ts), as its columns hold it. */
export interface DayRecordValues {
  readonly source_table: string;
  readonly day: string;
  readonly kind: string;
  readonly entry: string;
}

/** The durable day record's statements, on its table at `record` (a destination). */
export const dayRecordQueries = {
  /** Appends one entry. */
  insert(record: Destination, defaultProject: string, values: DayRecordValues): BigQueryStatement {
    return {
      query: `INSERT INTO ${tablePath(record, defaultProject)} (source_table, day, kind, entry, recorded_at) VALUES (@source_table, @day, @kind, @entry, CURRENT_TIMESTAMP())`,
      params: { ...values },
      types: { source_table: "STRING", day: "STRING", kind: "STRING", entry: "STRING" },
    };
  },
  /** Every entry of one day of one source table. */
  day(record: Destination, defaultProject: string, sourceTable: string, day: string): BigQueryStatement {
    return {
      query: `SELECT kind, entry FROM ${tablePath(record, defaultProject)} WHERE source_table = @source_table AND day = @day`,
      params: { source_table: sourceTable, day },
      types: { source_table: "STRING", day: "STRING" },
    };
  },
  /** Every copy entry of one source table. */
  copies(record: Destination, defaultProject: string, sourceTable: string): BigQueryStatement {
    return {
      query: `SELECT entry FROM ${tablePath(record, defaultProject)} WHERE source_table = @source_table AND kind = 'copied'`,
      params: { source_table: sourceTable },
      types: { source_table: "STRING" },
    };
  },
  /** The source tables with at least one copy entry, in order. */
  tables(record: Destination, defaultProject: string): BigQueryStatement {
    return {
      query: `SELECT DISTINCT source_table FROM ${tablePath(record, defaultProject)} WHERE kind = 'copied' ORDER BY source_table`,
      params: {},
      types: {},
    };
  },
};
