import type { CalendarDay } from "../model/calendar-day";
import type { CopiedDayRecord } from "../model/copied-day-record";

/**
 * Which days are migrated (the Redis set `mig_<table>`) and what was
 * recorded when each was copied.
 *
 * Guarantees: `recordCopiedDay` writes the record and adds the day to
 * `mig_<table>` in one atomic step, so a day is never in the set without its
 * figures. Members are `YYYY-MM-DD` strings.
 *
 * Leaves out: verifying anything; callers record only verified copies.
 */
export interface MigrationLedger {
  migratedDays(table: string): Promise<CalendarDay[]>;
  /** Whether `day` is in `mig_<table>`, without reading the whole set. */
  isMigrated(table: string, day: CalendarDay): Promise<boolean>;
  recordCopiedDay(table: string, record: CopiedDayRecord): Promise<void>;
  /**
   * The day's copy record. `where.destination`, when the caller knows where
   * the day was copied to, tells a ledger that can recover lost records from
   * the warehouse (see withDurableRecord) where to look; others ignore it.
   */
  copiedDay(
    table: string,
    day: CalendarDay,
    where?: { readonly destination?: string },
  ): Promise<CopiedDayRecord | undefined>;
  /** The copy records of those of `days` that have one, by day, in one read. */
  copiedDays(table: string, days: readonly CalendarDay[]): Promise<ReadonlyMap<CalendarDay, CopiedDayRecord>>;
  /** Tables that have a `mig_<table>` set. */
  tables(): Promise<string[]>;
}
