import type { CopiedDayRecord } from "./copied-day-record";
import type { CleanupPlan } from "./day-chunks";
import type { DayFigures } from "./day-figures";

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
