import type { CalendarDay } from "./calendar-day";
import type { DayFigures } from "./day-figures";

/** What was true of a day when it was copied; cleanup verifies against it. */
export interface CopiedDayRecord {
  readonly day: CalendarDay;
  readonly destination: string;
  readonly filterColumn: string;
  /**
   * The warehouse's figures of the copy, plus `fingerprint`: the source's
   * content fingerprint of exactly the rows copied. A record without one was
   * written before fingerprints existed; cleanup refuses such a day until it
   * is copied again.
   */
  readonly figures: DayFigures;
  readonly zeroDates: number;
  readonly bytes: number;
  readonly durationMs: number;
  /** ISO instant the copy was recorded. */
  readonly copiedAt: string;
}
