import type { CalendarDay } from "./calendar-day";

/** One day of one source table: what cleanup keeps its state and its lease by. */
export interface TableDay {
  readonly table: string;
  readonly day: CalendarDay;
}

/** The rows of one day of one table: `column >= 'D 00:00:00' AND column < 'D+1 00:00:00'`. */
export interface DayScope extends TableDay {
  /** The DATETIME filter column. */
  readonly column: string;
}
