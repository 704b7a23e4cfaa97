import type { CalendarDay } from "../model/calendar-day";
import type { CopiedDayRecord } from "../model/copied-day-record";
import type { DayCleanup, VerifiedDay } from "../model/day-cleanup";
import type { DayFigures } from "../model/day-figures";
import type { TableDay } from "../model/table-day";

/**
 * Per-day cleanup progress and the cleaned-days bookkeeping (`cleanedDays` of
 * `archiver status`), kept apart from `mig_<table>`.
 *
 * Guarantees: `markVerified` never replaces a day that is `deleting` or
 * `done` (it throws instead), so a plan in use cannot change under a running
 * delete. `markDone` sets the status and adds the day to the cleaned days in
 * one atomic step. A claim is a lease: at most one holder per day until it is
 * released or its time runs out. Failures to reach the store surface as
 * TransientError.
 *
 * Every method but `cleanedDays` names its day first, as a TableDay (a
 * DayScope is one).
 *
 * Leaves out: any check of the figures; the caller verifies.
 */
export interface CleanupState {
  read(at: TableDay): Promise<DayCleanup | undefined>;
  markVerified(at: TableDay, verified: VerifiedDay): Promise<void>;
  markDeleting(at: TableDay): Promise<void>;
  recordProgress(
    at: TableDay,
    progress: { readonly chunksDone: number; readonly rowsDeleted: number },
  ): Promise<void>;
  /** Marks the day cleaned; `figures` is given when the day had no `verified` state (already clean). */
  markDone(
    at: TableDay,
    done: {
      readonly rowsDeleted: number;
      readonly chunksDone: number;
      readonly doneAt: string;
      readonly figures?: DayFigures;
    },
  ): Promise<void>;
  /**
   * For a day `read` knows nothing of, whose rows verification refused: the
   * cleanup that had begun deleting them, verified against this very copy,
   * when the day's state was lost since (Redis emptied), taken up again as
   * `deleting` with its plan; undefined when there was none. A store that
   * keeps nothing beyond what `read` returns (Redis alone, the memory fake)
   * always answers undefined; withDurableCleanup answers from the
   * warehouse's durable day record.
   */
  resumeLost(
    at: TableDay,
    copy: Pick<CopiedDayRecord, "copiedAt" | "destination">,
  ): Promise<DayCleanup | undefined>;
  /** Days of `table` marked done, oldest first. */
  cleanedDays(table: string): Promise<CalendarDay[]>;
  /** Takes the day's lease for `ttlMs` when nobody holds it; false when someone else does. */
  claim(at: TableDay, holder: string, ttlMs: number): Promise<boolean>;
  /** Extends the lease; false when `holder` no longer holds it. */
  renew(at: TableDay, holder: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up when `holder` still holds it. */
  release(at: TableDay, holder: string): Promise<void>;
}
