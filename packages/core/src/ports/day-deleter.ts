import type { ChunkTarget, DayChunk, KeyRange } from "../model/day-chunks";
import type { DayScope } from "../model/table-day";

/** A foreign key of another table (or of the cleaned table itself) that references the cleaned table. */
export interface ReferencingKey {
  readonly constraint: string;
  /** The referencing table's database and name. */
  readonly childSchema: string;
  readonly childTable: string;
  readonly childColumns: readonly string[];
  /** The cleaned table's columns it references, in the same order. */
  readonly parentColumns: readonly string[];
  /** The ON DELETE rule the database would apply: CASCADE, SET NULL, SET DEFAULT, RESTRICT or NO ACTION. */
  readonly onDelete: string;
  /** True when the referencing table is the cleaned table itself (a `parent_id`). */
  readonly selfReferencing: boolean;
}

/** Rows of a referencing table that reference the rows in question. */
export interface ReferenceCount {
  readonly key: ReferencingKey;
  readonly rows: number;
}

/** What the database would do besides deleting a row of the table. */
export interface DeleteSideEffects {
  /** Foreign keys that reference the table, whatever their rule. */
  readonly referencingKeys: readonly ReferencingKey[];
  /** Names of the table's `DELETE` triggers. */
  readonly deleteTriggers: readonly string[];
}

/** What one chunk delete found under its locks, and what it did. */
export type ChunkOutcome =
  /** The locked rows matched the chunk and were deleted and committed. */
  | { readonly kind: "deleted"; readonly rows: number }
  /** No row of the chunk is left (an earlier attempt deleted it); nothing was deleted. */
  | { readonly kind: "absent" }
  /** The rows differ from the plan (count, keys or content); rolled back, nothing was deleted. */
  | {
      readonly kind: "changed";
      readonly rows: number;
      readonly fingerprint: string;
      /** Key chunks: the sum of the keys found. */
      readonly sum?: string;
    }
  /** Rows outside the chunk reference its rows; rolled back, nothing was deleted. */
  | { readonly kind: "referenced"; readonly references: readonly ReferenceCount[] }
  /** A foreign key or trigger appeared since the task read them; rolled back, nothing was deleted. */
  | { readonly kind: "side-effects-added"; readonly added: DeleteSideEffects };

/**
 * Deletes the rows of one day from the source, a chunk at a time. Only the
 * cleanup domain calls it, and only for a day it has verified.
 *
 * Guarantees: every statement is bounded by the day's range (the same
 * condition SourceDatabase counts with, so partial zero dates stay out) and by
 * the chunk's range. `deleteChunk` runs in one transaction and commits only
 * when the rows it removed have the plan's count, key sum and content
 * fingerprint, the table gained no foreign key or trigger (asked under the
 * chunk's locks), and no row outside the chunk references them; otherwise it
 * rolls back. So every deleted row is, at its delete, identical to the
 * planned one, and no ON DELETE rule of another table runs. Each chunk
 * commits on its own.
 * Connection failures, deadlocks and lock waits surface as TransientError, a
 * foreign-key violation as RefusalError, and a failed chunk has deleted
 * nothing.
 *
 * Leaves out: deciding what may be deleted (verification), pacing, and
 * remembering progress; the caller does those.
 */
export interface DayDeleter {
  /**
   * The table's referencing foreign keys and DELETE triggers, as the server's
   * dictionary describes them: read now, or at most a couple of seconds ago
   * (many tasks of one table ask at once). Each chunk's delete asks again under
   * its locks and stops at any key or trigger its task was not told of, so a
   * slightly old answer never lets a delete reach further than it was told.
   */
  sideEffects(table: string): Promise<DeleteSideEffects>;
  /**
   * Rows of each referencing table that reference rows of the day now. For a
   * self-referencing key, rows of the day that come later in the target's
   * order (newer keys or instants) do not count: deleted newest first, they
   * go before the rows they reference. Locks nothing.
   */
  countReferences(target: ChunkTarget, keys: readonly ReferencingKey[]): Promise<ReferenceCount[]>;
  /**
   * Every row of the day, in rising order of `by`, cut into chunks of at
   * most `chunkRows` rows (see ChunkBy for time chunks): together they are
   * the source's figures of the day. Locks nothing.
   */
  planChunks(target: ChunkTarget, chunkRows: number): Promise<DayChunk[]>;
  /**
   * Deletes one planned chunk if, and only if, its rows are still exactly the
   * planned ones, the table has no foreign key or trigger beyond
   * `sideEffects` (what the task checked and allowed), and no row outside the
   * chunk references its rows through `sideEffects.referencingKeys` (for a
   * self-referencing key, newer rows of the chunk itself are deleted first and
   * do not count). `newestFirst` deletes the chunk's rows from the highest key
   * (or latest instant) down, so a self-referencing child row goes before its
   * parent.
   */
  deleteChunk(
    target: ChunkTarget,
    chunk: DayChunk,
    sideEffects: DeleteSideEffects,
    options?: { readonly newestFirst?: boolean },
  ): Promise<ChunkOutcome>;
  /**
   * The statement that removes the day's rows (within the key range when
   * given), with the values written in, for an operator to read. Execution
   * binds the values and splits it into chunks.
   */
  describeDelete(scope: DayScope, range?: KeyRange): string;
}
