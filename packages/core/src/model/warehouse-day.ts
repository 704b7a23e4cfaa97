import { addDays, type CalendarDay, startOfDay } from "./calendar-day";
import { type Destination, formatDestination } from "./destination";

/**
 * One day of a destination table: the rows whose `filterColumn` (a DATETIME)
 * falls on `day`. What a warehouse replaces, counts and lists as a whole.
 */
export interface WarehouseDay {
  readonly destination: Destination;
  /** The column the day is cut by (where the warehouse partitions, the partitioning column). */
  readonly filterColumn: string;
  readonly day: CalendarDay;
}

/** Several days of one destination table, each a WarehouseDay. */
export interface WarehouseDays extends Omit<WarehouseDay, "day"> {
  readonly days: readonly CalendarDay[];
}

/**
 * From the first day's midnight to the midnight after the last (DATETIME
 * text, as startOfDay writes it): one range that holds every day of `days`,
 * and any day between them. Undefined for no days.
 */
export function spanOfDays(
  days: readonly CalendarDay[],
): { readonly start: string; readonly end: string } | undefined {
  const sorted = [...days].sort();
  const first = sorted[0];
  const last = sorted.at(-1);
  if (first === undefined || last === undefined) return undefined;
  return { start: startOfDay(first), end: startOfDay(addDays(last, 1)) };
}

/** `dataset.table YYYY-MM-DD`, for messages. */
export function formatWarehouseDay(at: WarehouseDay): string {
  return `${formatDestination(at.destination)} ${at.day}`;
}
