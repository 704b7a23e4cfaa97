import type { CalendarDay } from "../model/calendar-day";
import type { CopiedDayRecord } from "../model/copied-day-record";
import type { CleanupPlan } from "../model/day-chunks";
import type { DayFigures } from "../model/day-figures";
import type { Destination } from "../model/destination";

/** The dataset (and project, where the warehouse has projects) a destination table lives in. */
export type DatasetRef = Pick<Destination, "project" | "dataset">;

/** What cleanup had verified and planned when it started deleting a day. */
export interface CleanupStart {
  /** `copiedAt` of the copy record the plan was verified against. */
  readonly copiedAt: string;
  readonly figures: DayFigures;
  readonly plan: CleanupPlan;
  readonly verifiedAt: string;
}

/**
 * One entry of the durable day record a warehouse keeps beside the data, in
 * the table `_archiver_days` of the destination's dataset. Entries are only
 * ever appended; the latest of each kind counts.
 */
export type DayRecordEntry =
  | { readonly kind: "copied"; readonly table: string; readonly copy: CopiedDayRecord }
  | {
      readonly kind: "cleanup-started";
      readonly table: string;
      readonly day: CalendarDay;
      readonly cleanup: CleanupStart;
    };

/** What the durable record knows of one day of a source table. */
export interface DurableDayRecord {
  /** The latest copy recorded (the same record `mig_<table>` stands for in Redis). */
  readonly copy?: CopiedDayRecord;
  /** The latest cleanup start, when a cleanup of the day began deleting. */
  readonly cleanup?: CleanupStart;
}

/**
 * The durable record of the days a warehouse holds: which days of which source
 * table were copied (with their copy records), and which days' cleanups began
 * deleting (with their plans). Redis holds the working copy of the same facts
 * (`mig_<table>`, the copy records, the cleanup state); this record is what is
 * left when Redis loses its data.
 *
 * Guarantees: an entry that `recordDay` returned for is read back by every
 * later `dayRecord` and `recordedCopies`, whatever happens to Redis; entries
 * of other source tables and days are never returned.
 *
 * Leaves out: removing entries (none is ever removed), and checking that an
 * entry agrees with the data.
 */
export interface DayRecordStore {
  recordDay(at: DatasetRef, entry: DayRecordEntry): Promise<void>;
  /** The latest entry of each kind for `table`'s `day`; `{}` when none (or no record table) exists. */
  dayRecord(at: DatasetRef, table: string, day: CalendarDay): Promise<DurableDayRecord>;
  /** The latest copy record of every day of `table` recorded copied, oldest day first. */
  recordedCopies(at: DatasetRef, table: string): Promise<CopiedDayRecord[]>;
  /** The source tables with a day recorded copied, sorted. */
  recordedTables(at: DatasetRef): Promise<string[]>;
}
