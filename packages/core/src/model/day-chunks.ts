import type { DayScope } from "./table-day";
import type { TableSchema } from "./table-schema";

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
 * What a day's chunks are ranges of: the single integer primary key, or, for
 * a table without one, the filter column's values (a chunk then holds every
 * row of the day whose filter value lies in its range, so a single instant
 * shared by more rows than a chunk's size makes one larger chunk).
 */
export type ChunkBy = ({ readonly kind: "key" } & KeyColumn) | { readonly kind: "time" };

/** The rows a chunk operation works on: one day of a described table, cut by `by`. */
export interface ChunkTarget {
  readonly scope: DayScope;
  /** The table as described now: the fingerprint covers each of its columns. */
  readonly schema: TableSchema;
  readonly by: ChunkBy;
}

/**
 * A run of the day's rows: those whose key (or filter value) lies in
 * [first, last], with what they were when the chunk was planned. Deleting a
 * chunk removes exactly these rows, each identical in every column to what
 * was planned, or nothing.
 */
export interface DayChunk {
  /** Inclusive bounds: decimal keys, or filter values as the server prints them. */
  readonly first: string;
  readonly last: string;
  readonly rows: number;
  /** Key chunks: the sum of their keys, as decimal text. */
  readonly sum?: string;
  /** The content fingerprint of the chunk's rows (sum of 64-bit row hashes, decimal text). */
  readonly fingerprint: string;
  /**
   * The chunk stands for its whole day (the one chunk of a day planned from
   * its copy record): a day that holds any row outside the chunk's range (a
   * row that arrived after the copy) counts as changed, and nothing is deleted.
   */
  readonly wholeDay?: boolean;
}

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

/**
 * Rows per chunk the copy records of a day (CopiedDayRecord.chunks): one
 * delete of this many rows locks them for about 20 ms and costs the primary
 * about what pt-archiver's `--limit 1000` does a row.
 */
export const COPY_CHUNK_ROWS = 1_000;

/** A plan this version can delete by: chunks with their content fingerprints. */
export type ChunkPlan = Extract<CleanupPlan, { kind: "chunks" }>;
