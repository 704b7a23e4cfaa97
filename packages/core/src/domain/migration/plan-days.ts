import type { SourceDatabase } from "../../ports/source-database";
import { addDays, type CalendarDay } from "../days/calendar-day";

/** The earliest day MySQL's DATETIME can hold; zero dates sort before it and are never planned. */
export const FIRST_DAY: CalendarDay = "1000-01-01";

export interface PlanDaysInput {
  readonly table: string;
  readonly column: string;
  /** First day that may be planned (the day of min_date_limit_iso), inclusive. */
  readonly from: CalendarDay;
  /** The cutoff day, exclusive. */
  readonly before: CalendarDay;
  readonly limit: number;
  /** Days to skip: already migrated or already queued. */
  readonly exclude: ReadonlySet<CalendarDay>;
}

/**
 * The oldest days in [from, before) that have rows and are not excluded, at
 * most `limit`. Each step is one index probe for the next day with rows, so
 * the cost grows with the days visited, not with the table's size; a run of
 * excluded days is stepped over without probing each of them.
 */
export async function planDays(source: SourceDatabase, input: PlanDaysInput): Promise<CalendarDay[]> {
  const days: CalendarDay[] = [];
  let cursor = skipExcluded(input.from, input.exclude);
  while (days.length < input.limit && cursor < input.before) {
    const day = await source.firstDayWithRows(input.table, input.column, cursor, input.before);
    if (day === undefined) break;
    if (!input.exclude.has(day)) days.push(day);
    cursor = skipExcluded(addDays(day, 1), input.exclude);
  }
  return days;
}

function skipExcluded(day: CalendarDay, exclude: ReadonlySet<CalendarDay>): CalendarDay {
  let cursor = day;
  while (exclude.has(cursor)) cursor = addDays(cursor, 1);
  return cursor;
}
