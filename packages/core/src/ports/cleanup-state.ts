import type { CalendarDay } from "../domain/days/calendar-day";
import type { DayFigures } from "../domain/types/day-figures";
import type { ChunkBy, DayChunk, TableDay } from "./day-deleter";
import type { CopiedDayRecord } from "./migration-ledger";

/**
 * How a verified day will be deleted: its planned chunks, in the order they
 * are deleted, each carrying the content fingerprint of its rows.
 */
export type CleanupPlan =
  | {
      readonly kind: "chunks";
      readonly by: ChunkBy;
      readonly chunks: readonly DayChunk[];
      /**
       * Chunks run from the newest rows down, and rows within a chunk too: in a
       * table whose foreign key references itself, children (newer rows) go
       * before their parents.
       */
      readonly newestFirst: boolean;
    }
  /**
   * A plan stored by a version without content fingerprints (by key sums, or
   * by row count alone). It is never resumed: what is left of such a day
   * cannot be proven identical to its copy.
   */
  | { readonly kind: "keys" | "count" };

/** A plan this version can delete by: chunks with their content fingerprints. */
export type ChunkPlan = Extract<CleanupPlan, { kind: "chunks" }>;

/**
 * A day's cleanup: `verified` (figures agreed, plan made, nothing deleted),
 * `deleting` (chunks may have committed; a retry resumes, never re-verifies),
 * `done` (the day is cleaned; it stays in `mig_<table>`).
 */
export interface DayCleanup {
  readonly status: "verified" | "deleting" | "done";
  /** The figures source, warehouse and copy record agreed on. */
  readonly figures: DayFigures;
  readonly plan: CleanupPlan;
  readonly verifiedAt: string;
  /** Chunks known to be finished (deleted, or found already gone). */
  readonly chunksDone: number;
  readonly rowsDeleted: number;
  readonly doneAt?: string;
}

/** What verification agreed on for a day, and the plan it made; nothing deleted yet. */
export interface VerifiedDay {
  readonly figures: DayFigures;
  readonly plan: CleanupPlan;
  readonly verifiedAt: string;
  /**
   * The copy record the figures were verified against. A store that keeps a
   * started cleanup beyond itself (see resumeLost) files the plan under it;
   * the day's state itself does not keep it.
   */
  readonly copy?: Pick<CopiedDayRecord, "copiedAt" | "destination">;
}

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
