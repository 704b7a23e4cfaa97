import { RefusalError } from "../../errors";
import type { CalendarDay } from "../../model/calendar-day";
import type { CopiedDayRecord } from "../../model/copied-day-record";
import type { CleanupStart, DayRecordEntry, DurableDayRecord } from "../../ports/day-record";

/**
 * The table of the durable day record, one per dataset. Its name starts with
 * an underscore so that it sorts apart from the archived tables.
 */
export const DAY_RECORD_TABLE = "_archiver_days";

/** An entry as a row of the record table: the entry itself is JSON text. */
export interface DayRecordRow {
  readonly source_table: string;
  readonly day: CalendarDay;
  readonly kind: DayRecordEntry["kind"];
  readonly entry: string;
}

export function toDayRecordRow(entry: DayRecordEntry): DayRecordRow {
  return entry.kind === "copied"
    ? { source_table: entry.table, day: entry.copy.day, kind: "copied", entry: JSON.stringify(entry.copy) }
    : {
        source_table: entry.table,
        day: entry.day,
        kind: "cleanup-started",
        entry: JSON.stringify(entry.cleanup),
      };
}

/**
 * Folds the rows of one day into its record. The latest entry of a kind is
 * the one with the latest `copiedAt` (copies) or `verifiedAt` (cleanup
 * starts), ISO instants that compare as text: the order rows come back in
 * does not matter.
 */
export function foldDayRecord(
  rows: readonly Pick<DayRecordRow, "kind" | "entry">[],
  label: string,
): DurableDayRecord {
  let copy: CopiedDayRecord | undefined;
  let cleanup: CleanupStart | undefined;
  for (const row of rows) {
    if (row.kind === "copied") {
      const next = parseEntry<CopiedDayRecord>(row.entry, label);
      if (!copy || next.copiedAt > copy.copiedAt) copy = next;
    } else if (row.kind === "cleanup-started") {
      const next = parseEntry<CleanupStart>(row.entry, label);
      if (!cleanup || next.verifiedAt > cleanup.verifiedAt) cleanup = next;
    }
  }
  return { ...(copy ? { copy } : {}), ...(cleanup ? { cleanup } : {}) };
}

/** The latest copy of each day among `rows` (copy entries of one table), oldest day first. */
export function latestCopies(rows: readonly Pick<DayRecordRow, "entry">[], label: string): CopiedDayRecord[] {
  const byDay = new Map<string, CopiedDayRecord>();
  for (const row of rows) {
    const copy = parseEntry<CopiedDayRecord>(row.entry, label);
    const held = byDay.get(copy.day);
    if (!held || copy.copiedAt > held.copiedAt) byDay.set(copy.day, copy);
  }
  return [...byDay.values()].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
}

function parseEntry<T>(text: string, label: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new RefusalError(`${label}: an entry of ${DAY_RECORD_TABLE} is not JSON: ${text.slice(0, 80)}`, {
      cause: error,
    });
  }
}
