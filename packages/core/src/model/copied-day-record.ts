import type { CalendarDay } from "./calendar-day";
import type { DayChunk } from "./day-chunks";
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
  /**
   * For a table with one integer key: the day cut by key into chunks of
   * COPY_CHUNK_ROWS rows as the copy read them, in key order, each with its
   * rows and content fingerprint (no key sum). Contiguous, from the day's
   * smallest key to its largest, and adding up to `figures`. Cleanup deletes
   * the day by them without reading it first; a record without them (an
   * earlier version's, or a day too large to cut) is planned by reading it.
   */
  readonly chunks?: readonly DayChunk[];
  readonly zeroDates: number;
  readonly bytes: number;
  readonly durationMs: number;
  /** ISO instant the copy was recorded. */
  readonly copiedAt: string;
}
