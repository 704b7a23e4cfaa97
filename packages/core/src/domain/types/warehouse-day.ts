import type { CalendarDay } from "../days/calendar-day";
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

/** `dataset.table YYYY-MM-DD`, for messages. */
export function formatWarehouseDay(at: WarehouseDay): string {
  return `${formatDestination(at.destination)} ${at.day}`;
}
