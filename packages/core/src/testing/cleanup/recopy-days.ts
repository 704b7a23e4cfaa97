import { readDuckDbDay } from "../../adapters/duckdb/testing/read-day";
import type { CalendarDay } from "../../model/calendar-day";
import { cleanTask } from "../cleanup-fixture";
import { fx } from "./file-fixture";

// A day as the source and the warehouse hold it, and the clean task that copies a changed day again: what the
// re-copy tests compare and run.

/** The source's rows of the day as arrays of canonical values, ordered by every column from the first. */
export async function sourceDay(table: string, day: CalendarDay): Promise<unknown[][]> {
  const rows = await fx.query<Record<string, unknown>>(
    `SELECT * FROM \`${table}\` WHERE created_at >= ? AND created_at < ? + INTERVAL 1 DAY`,
    [day, day],
  );
  return rows.map((row) => Object.values(row)).sort(compareRows);
}

/** What the warehouse holds for the day, as the same arrays. */
export async function warehouseDay(table: string, day: CalendarDay): Promise<unknown[][]> {
  const schema = await fx.source.describeTable(table);
  if (!schema) throw new Error(`no table ${table}`);
  const rows = await readDuckDbDay(
    fx.warehouse,
    { destination: { dataset: "archive", table }, filterColumn: "created_at", day },
    schema,
  );
  return rows.map((row) => [...row]).sort(compareRows);
}

function compareRows(a: readonly unknown[], b: readonly unknown[]): number {
  const text = (row: readonly unknown[]) => JSON.stringify(row);
  return text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0;
}

export const recopyTask = (table: string, day: CalendarDay) => ({
  ...cleanTask(table, day),
  recopyChangedDays: true,
});
