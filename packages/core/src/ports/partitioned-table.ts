import type { CalendarDay } from "../model/calendar-day";
import type { DayFigures } from "../model/day-figures";
import type { TableSchema } from "../model/table-schema";

/** One partition of a range-partitioned table, in the table's order. */
export interface RangePartition {
  readonly name: string;
  /**
   * The first instant the partition no longer holds (`VALUES LESS THAN`), as
   * `YYYY-MM-DD HH:MM:SS[.ffffff]`; undefined for `MAXVALUE`.
   */
  readonly below: string | undefined;
}

/** How a table is partitioned, as far as cleanup cares. */
export type Partitioning =
  | { readonly kind: "none" }
  /**
   * `PARTITION BY RANGE` on `column` through TO_DAYS, TO_SECONDS or YEAR, or
   * `RANGE COLUMNS(column)`, without subpartitions: each partition holds the
   * rows from the previous partition's `below` (the first: from the lowest
   * value, NULL and zero dates included) up to its own.
   */
  | { readonly kind: "range"; readonly column: string; readonly partitions: readonly RangePartition[] }
  /** Any other partitioning (HASH, KEY, LIST, another column, subpartitions), in the server's words. */
  | { readonly kind: "other"; readonly description: string };

/** Where the rows a partition operation reads are: a partition of the live table, or its detached twin. */
export type PartitionRows = { readonly partition: string } | { readonly twinOf: string };

/** The rows of one partition (or its twin), by calendar day. */
export interface PartitionDays {
  /** Each day's figures, counted exactly as a day's source figures are (see SourceDatabase.dayFigures). */
  readonly days: ReadonlyMap<CalendarDay, DayFigures>;
  /** Rows on no calendar day: a NULL or zero date. */
  readonly outside: number;
}

/** How many rows of a partition (or its twin) lie on each day. */
export interface PartitionDayCounts {
  readonly days: ReadonlyMap<CalendarDay, number>;
  /** Rows on no calendar day: a NULL or zero date. */
  readonly outside: number;
}

/** A detached twin the archiver left behind (a crash between detaching and dropping or putting back). */
export interface DetachedTwin {
  readonly table: string;
  readonly partition: string;
  readonly twin: string;
  readonly rows: number;
}

/**
 * Empties whole partitions of a range-partitioned table, for cleanup. A
 * partition is emptied by exchanging it with an empty table of the same
 * shape, its twin (`ALTER TABLE ... EXCHANGE PARTITION p WITH TABLE twin`):
 * one atomic metadata change, no row deleted, so no undo, no purge and one
 * statement in the binlog. Nothing writes the twin afterwards, so it can be
 * verified at leisure, then dropped, or its rows put back.
 *
 * Guarantees: the twin's name says what it is, and which table and partition
 * it came from (`twinName`), so a crash at any step leaves a state the next
 * attempt recognises: no twin, an empty twin (detaching not begun or
 * finished putting back: drop it), or a twin holding the partition's rows
 * (detached: verify, then drop or put back). `putBack` moves every row of
 * the twin into the live table and empties the twin in one transaction.
 * Errors are mapped like every MySQL error (TransientError for what a retry
 * may cure).
 *
 * Leaves out: deciding whether a partition may be emptied; the cleanup domain
 * verifies every day of it against its copy records first and after.
 */
export interface PartitionedTable {
  partitioning(table: string): Promise<Partitioning>;
  /**
   * Whether the account may create, exchange and drop twins: CREATE, DROP,
   * ALTER and INSERT on the table's database. `grant` is the statement that
   * would allow it, when it may not.
   */
  mayExchange(table: string): Promise<{ readonly ok: boolean; readonly grant?: string }>;
  /**
   * Names of the table's `INSERT` triggers: rows put back after an exchange
   * are inserted when the partition took new rows meanwhile, which would fire
   * them again.
   */
  insertTriggers(table: string): Promise<string[]>;
  /**
   * Seconds since the server last wrote to the partition, from its
   * `UPDATE_TIME` (whole seconds, kept in memory: a server that has not
   * written to it since it started answers its uptime); undefined when the
   * server cannot say. A hint, never a proof: nothing is deleted on its word.
   */
  secondsSinceWrite(table: string, partition: string): Promise<number | undefined>;
  /** Rows of `rows` by day, counted through the filter column's index (no row is read, none hashed). */
  dayCounts(table: string, column: string, rows: PartitionRows): Promise<PartitionDayCounts>;
  /**
   * Figures of `rows` by day, content fingerprints included: of `day` alone
   * (a range of the filter column's index), or of every day in one pass over
   * all of `rows` when no day is given (the cheapest read of rows that hold
   * nothing else, and the only one for a filter column that leads no index,
   * where a day's range would read the whole partition anyway).
   */
  dayFigures(
    schema: TableSchema,
    column: string,
    rows: PartitionRows,
    day?: CalendarDay,
  ): Promise<PartitionDays>;
  /**
   * Figures of a slice of `rows` by day, as dayFigures counts them: the rows
   * after the key `after` (from the first row when absent) up to the key
   * `upTo`, in primary key order; `upTo` null takes every row after `after`,
   * and absent, the key of the `limit`-th row after it (or every row, when
   * fewer follow). Answers `last`, the key the slice ended on (none when it
   * took every row that followed), and `next`, when known, the `upTo` of the
   * following slice. Each slice is one short statement along the primary
   * key, and consecutive slices hold every row once. Only for a key
   * sliceableKey accepts.
   */
  sliceFigures(
    schema: TableSchema,
    column: string,
    rows: PartitionRows,
    slice: {
      readonly after?: readonly string[];
      readonly upTo?: readonly string[] | null;
      readonly limit: number;
    },
  ): Promise<{
    readonly figures: PartitionDays;
    readonly last?: readonly string[];
    readonly next?: readonly string[] | null;
  }>;
  /** The twin's name for `partition` of `table`. */
  twinName(table: string, partition: string): string;
  /** The statement that detaches `partition` into its twin, for an operator to read (a dry run). */
  describeDetach(table: string, partition: string): string;
  /** Rows in the twin of `partition`; undefined when there is no twin. */
  twinRows(table: string, partition: string): Promise<number | undefined>;
  /** Creates the empty twin and exchanges the partition with it: the partition's rows are then the twin's. */
  detach(table: string, partition: string): Promise<void>;
  /** Moves the twin's rows back into the live table (they land in their partition by range); returns how many. */
  putBack(table: string, partition: string): Promise<number>;
  /** Drops the twin (and its rows with it). */
  dropTwin(table: string, partition: string): Promise<void>;
  /** Twins in the database, with their rows: any left by an interrupted cleanup. */
  detachedTwins(): Promise<DetachedTwin[]>;
  /** The partitions of `table` that have a twin, by name; no twin's rows are counted. */
  detachedPartitions(table: string): Promise<string[]>;
}
