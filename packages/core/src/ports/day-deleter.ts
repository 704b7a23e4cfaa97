import type { CalendarDay } from "../domain/days/calendar-day";

/** The rows of one day of one table: `column >= 'D 00:00:00' AND column < 'D+1 00:00:00'`. */
export interface DayScope {
  readonly table: string;
  /** The DATETIME filter column. */
  readonly column: string;
  readonly day: CalendarDay;
}

/** The table's single integer primary key. */
export interface KeyColumn {
  readonly column: string;
  readonly unsigned: boolean;
}

/** A range of the key: the one recorded when the day was copied bounds every delete of the day. */
export interface KeyRange extends KeyColumn {
  /** Inclusive bounds, as decimal strings (keys exceed 2^53). */
  readonly min: string;
  readonly max: string;
}

/**
 * A run of the day's keys: the keys in [first, last] that lie in the day, and
 * their count and sum when the chunk was planned. Deleting a chunk removes
 * exactly these rows or nothing.
 */
export interface KeyChunk {
  readonly first: string;
  readonly last: string;
  readonly rows: number;
  readonly sum: string;
}

/** What one chunk delete found under its locks, and what it did. */
export type ChunkOutcome =
  /** The locked rows matched the chunk and were deleted and committed. */
  | { readonly kind: "deleted"; readonly rows: number }
  /** No row of the chunk is left (an earlier attempt deleted it); nothing was deleted. */
  | { readonly kind: "absent" }
  /** The rows differ from the plan; the transaction was rolled back, nothing was deleted. */
  | { readonly kind: "changed"; readonly rows: number; readonly sum: string };

/**
 * Deletes the rows of one day from the source, a chunk at a time. Only the
 * cleanup domain calls it, and only for a day it has verified.
 *
 * Guarantees: every statement is bounded by the day's range (the same
 * condition SourceDatabase counts with, so partial zero dates stay out), and,
 * for keyed tables, by the chunk's key range. `deleteKeyChunk` runs in one
 * transaction: it locks the chunk's rows, compares their count and key sum
 * with the chunk, and deletes only on an exact match, checking that the
 * delete removed exactly the rows it locked; otherwise it rolls back. Each
 * chunk commits on its own. Connection failures, deadlocks and lock waits
 * surface as TransientError, and a failed chunk has deleted nothing.
 *
 * Leaves out: deciding what may be deleted (verification), pacing, and
 * remembering progress; the caller does those.
 */
export interface DayDeleter {
  /**
   * Every key of the day, in key order, cut into chunks of at most
   * `chunkRows` keys: together they are the source's figures of the day.
   * Reads keys only; locks nothing.
   */
  planKeyChunks(scope: DayScope, key: KeyColumn, chunkRows: number): Promise<KeyChunk[]>;
  /** Deletes one planned chunk if, and only if, its rows are still exactly the planned ones. */
  deleteKeyChunk(scope: DayScope, key: KeyColumn, chunk: KeyChunk): Promise<ChunkOutcome>;
  /** Rows of the day now (tables without a single integer key). */
  countDay(scope: DayScope): Promise<number>;
  /** Deletes at most `limit` rows of the day in one statement; returns how many it deleted. */
  deleteRows(scope: DayScope, limit: number): Promise<number>;
  /**
   * The statement that removes the day's rows (within the key range when
   * given), with the values written in, for an operator to read. Execution
   * binds the values and splits it into chunks.
   */
  describeDelete(scope: DayScope, range?: KeyRange): string;
}
