import { InvalidInputError, RefusalError } from "../../errors";
import type { CopiedDayRecord } from "../../model/copied-day-record";
import { type DayFigures, describeFigures } from "../../model/day-figures";
import type { CopyDayTask } from "../../model/task";
import type { DayStreamStats } from "../../ports/source-database";
import type { CopyFacts, CopyTarget } from "./copy-facts";

/** What a copy task does with its day. */
export type CopyDecision =
  | { readonly kind: "refuse"; readonly error: InvalidInputError }
  /** A duplicate delivery, or a retry after the record was written: the recorded copy stands. */
  | { readonly kind: "recorded"; readonly record: CopiedDayRecord }
  | { readonly kind: "copy"; readonly target: CopyTarget };

/**
 * Decides from the facts alone. A first copy takes only a whole past day,
 * and never a recorded one: the planner never queues a migrated day, and
 * copying again could replace the warehouse's day with what cleanup left of
 * the source's. A re-copy (cleanup's `recopy_changed_days`) copies the day
 * it is given.
 */
export function decideCopy(facts: CopyFacts): CopyDecision {
  const { task, today } = facts;
  if (facts.mode === "copy" && task.day >= today) {
    return {
      kind: "refuse",
      error: new InvalidInputError(
        "day",
        `${task.day} is not a whole past day (today is ${today} in ${facts.timeZone})`,
      ),
    };
  }
  if (facts.recorded) return { kind: "recorded", record: facts.recorded };
  if (!facts.target) throw new Error(`${task.table} ${task.day}: no copy target was read for a day to copy`);
  return { kind: "copy", target: facts.target };
}

/** What a finished replace wrote, and when. */
export interface CopyWritten {
  /** What the source stream read (DayStream.stats), after its last batch. */
  readonly read: DayStreamStats;
  readonly rowsWritten: number;
  /** The warehouse's figures of the day as it now holds it. */
  readonly figures: DayFigures;
  readonly durationMs: number;
  readonly copiedAt: string;
}

/**
 * The record of a copied day, only when the warehouse holds exactly the
 * rows read: as many written, as many counted, and as many distinct keys.
 * Otherwise a RefusalError, and the replace that asked rolls back where it can.
 */
export function copiedDayRecord(task: CopyDayTask, written: CopyWritten): CopiedDayRecord {
  const { read, figures } = written;
  if (
    written.rowsWritten !== read.rows ||
    figures.rows !== read.rows ||
    (figures.key && figures.key.count !== read.rows)
  ) {
    throw new RefusalError(
      `${task.table} ${task.day}: read ${read.rows} rows from the source but the warehouse holds ${describeFigures(figures)}`,
    );
  }
  return {
    day: task.day,
    destination: task.destination,
    filterColumn: task.filterColumn,
    figures: { ...figures, fingerprint: read.fingerprint },
    ...(read.chunks ? { chunks: read.chunks } : {}),
    zeroDates: read.zeroDates,
    bytes: read.bytes,
    durationMs: written.durationMs,
    copiedAt: written.copiedAt,
  };
}
