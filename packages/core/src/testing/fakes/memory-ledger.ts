import { InvalidInputError } from "../../errors";
import { type CalendarDay, isCalendarDay } from "../../model/calendar-day";
import type { CopiedDayRecord } from "../../model/copied-day-record";
import type { MigrationLedger } from "../../ports/migration-ledger";

/** An in-memory MigrationLedger that a test can also empty, as Redis losing its data would. */
export interface MemoryLedger extends MigrationLedger {
  /** Forgets every table's days and records. */
  clear(): void;
  /** Forgets one day of a table: its record and its membership together. */
  forget(table: string, day: CalendarDay): void;
}

/**
 * The migration ledger in memory: per table, the copy record of each migrated
 * day; a day is migrated exactly when it has a record (`recordCopiedDay`
 * writes both at once, as the port guarantees). Records are stored and read
 * back as JSON, as Redis holds them, so a caller never shares an object with
 * the ledger. It passes the MigrationLedger contract as the Redis adapter does.
 */
export function createMemoryLedger(): MemoryLedger {
  const tables = new Map<string, Map<CalendarDay, string>>();
  const parse = (json: string | undefined) =>
    json === undefined ? undefined : (JSON.parse(json) as CopiedDayRecord);

  return {
    async migratedDays(table) {
      return [...(tables.get(table)?.keys() ?? [])].sort();
    },
    async isMigrated(table, day) {
      return tables.get(table)?.has(day) ?? false;
    },
    async recordCopiedDay(table, record) {
      if (!isCalendarDay(record.day))
        throw new InvalidInputError("day", `not a YYYY-MM-DD day: ${record.day}`);
      const days = tables.get(table) ?? new Map<CalendarDay, string>();
      days.set(record.day, JSON.stringify(record));
      tables.set(table, days);
    },
    async copiedDay(table, day) {
      return parse(tables.get(table)?.get(day));
    },
    async copiedDays(table, days) {
      const records = new Map<CalendarDay, CopiedDayRecord>();
      for (const day of days) {
        const record = parse(tables.get(table)?.get(day));
        if (record) records.set(day, record);
      }
      return records;
    },
    async tables() {
      return [...tables.entries()].flatMap(([table, days]) => (days.size > 0 ? [table] : [])).sort();
    },
    clear() {
      tables.clear();
    },
    forget(table, day) {
      tables.get(table)?.delete(day);
    },
  };
}
