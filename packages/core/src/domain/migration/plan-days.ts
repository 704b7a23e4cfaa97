import { addDays, type CalendarDay } from "../../model/calendar-day";
import type { SourceDatabase } from "../../ports/source-database";

/** The earliest day MySQL's DATETIME can hold; zero dates sort before it and are never planned. */
export const FIRST_DAY: CalendarDay = "1000-01-01";

/** Probes sent in one round trip: enough to plan the default 20 days with rows at once. */
const PROBE_WINDOW = 32;

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
 * most `limit`. Days are found by index probes (the first value at or after a
 * day), never by scanning rows, so the cost grows with the days visited, not
 * with the table's size. Probes go out in windows: one probe for each of the
 * next PROBE_WINDOW days that are not excluded, answered in one round trip.
 * Every day with rows up to the last probe's answer is then known, because
 * such a day is either excluded or is itself the start of a probe.
 */
export async function planDays(source: SourceDatabase, input: PlanDaysInput): Promise<CalendarDay[]> {
  const days: CalendarDay[] = [];
  let cursor = input.from;
  while (days.length < input.limit && cursor < input.before) {
    const froms = windowFrom(cursor, input.before, input.exclude);
    if (froms.length === 0) break;
    const firsts = await source.firstDaysWithRows(input.table, input.column, froms, input.before);
    for (const day of new Set(firsts)) {
      if (day !== undefined && !input.exclude.has(day) && days.length < input.limit) days.push(day);
    }
    const last = firsts.at(-1);
    if (last === undefined) break;
    cursor = addDays(last, 1);
  }
  return days;
}

/** The next PROBE_WINDOW days from `cursor` (inclusive) before `before` that are not excluded. */
function windowFrom(
  cursor: CalendarDay,
  before: CalendarDay,
  exclude: ReadonlySet<CalendarDay>,
): CalendarDay[] {
  const froms: CalendarDay[] = [];
  for (let day = cursor; day < before && froms.length < PROBE_WINDOW; day = addDays(day, 1)) {
    if (!exclude.has(day)) froms.push(day);
  }
  return froms;
}
