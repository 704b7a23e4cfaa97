import { addDays, startOfDay } from "../../domain/days/calendar-day";
import type { DayFigures } from "../../domain/types/day-figures";
import type { Destination } from "../../domain/types/destination";
import type { WarehouseDay } from "../../domain/types/warehouse-day";

/** A parameterised standard-SQL query as `BigQuery.query` takes it. */
export interface FiguresQuery {
  readonly query: string;
  readonly params: Readonly<Record<string, string>>;
  readonly types: Readonly<Record<string, string>>;
}

/** `project.dataset.table` quoted for standard SQL. */
export function tablePath(destination: Destination, defaultProject: string): string {
  return `\`${destination.project ?? defaultProject}.${destination.dataset}.${destination.table}\``;
}

/**
 * Counts one day of the table, with key figures when `keyColumn` is given. The
 * day is a range on the partitioning column bound as DATETIME parameters, so
 * BigQuery prunes to the one partition. Every figure comes back as text: sums
 * of 64-bit keys exceed 2^53 and are summed as BIGNUMERIC so they cannot overflow.
 */
export function dayFiguresQuery(at: WarehouseDay, defaultProject: string, keyColumn?: string): FiguresQuery {
  const key = keyColumn === undefined ? undefined : `\`${keyColumn}\``;
  const columns = ["CAST(COUNT(*) AS STRING) AS row_count"];
  if (key) {
    columns.push(
      `CAST(COUNT(${key}) AS STRING) AS key_count`,
      `CAST(COALESCE(SUM(CAST(${key} AS BIGNUMERIC)), 0) AS STRING) AS key_sum`,
      `CAST(MIN(${key}) AS STRING) AS key_min`,
      `CAST(MAX(${key}) AS STRING) AS key_max`,
    );
  }
  return onDay(`SELECT ${columns.join(", ")} FROM ${tablePath(at.destination, defaultProject)}`, at);
}

/**
 * Lists the keys one day of the table holds, one row each (column `k`), as
 * text: NUMERIC (BIGINT UNSIGNED) and INTEGER keys print as exact decimals.
 * The day is bound as in `dayFiguresQuery`, so BigQuery reads one partition.
 */
export function dayKeysQuery(at: WarehouseDay, defaultProject: string, keyColumn: string): FiguresQuery {
  return onDay(
    `SELECT CAST(\`${keyColumn}\` AS STRING) AS k FROM ${tablePath(at.destination, defaultProject)}`,
    at,
  );
}

/** `select` restricted to the day: a range on the partitioning column, bound as DATETIME parameters. */
function onDay(select: string, { filterColumn, day }: WarehouseDay): FiguresQuery {
  return {
    query: `${select} WHERE \`${filterColumn}\` >= @day_start AND \`${filterColumn}\` < @next_day_start`,
    params: { day_start: startOfDay(day), next_day_start: startOfDay(addDays(day, 1)) },
    types: { day_start: "DATETIME", next_day_start: "DATETIME" },
  };
}

/** Reads the one row `dayFiguresQuery` returns. */
export function parseDayFigures(
  row: Readonly<Record<string, unknown>> | undefined,
  keyColumn?: string,
): DayFigures {
  const rows = Number(row?.row_count ?? 0);
  if (keyColumn === undefined) return { rows };
  return {
    rows,
    key: {
      column: keyColumn,
      count: Number(row?.key_count ?? 0),
      sum: String(row?.key_sum ?? "0"),
      min: String(row?.key_min ?? ""),
      max: String(row?.key_max ?? ""),
    },
  };
}
