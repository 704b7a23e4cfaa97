import type { CalendarDay } from "../model/calendar-day";
import type { DayChunk } from "../model/day-chunks";
import type { DayFigures } from "../model/day-figures";
import type { Row, TableSchema } from "../model/table-schema";

/** What a finished day stream read. */
export interface DayStreamStats {
  readonly rows: number;
  /** Approximate bytes received from the database. */
  readonly bytes: number;
  /** Zero dates (`0000-00-00...`) that became null, counted over all columns. */
  readonly zeroDates: number;
  /**
   * The content fingerprint of exactly the rows read, computed by the source
   * in the statement that read them (see DayFigures.fingerprint).
   */
  readonly fingerprint: string;
  /**
   * For a table with one integer key: the rows read cut by key into chunks
   * (see CopiedDayRecord.chunks), adding up to the rows and fingerprint.
   */
  readonly chunks?: readonly DayChunk[];
}

/** A day's rows, read once, in batches. */
export interface DayStream {
  /** Batches of rows in canonical values (see LogicalType), in an order the adapter chooses. */
  readonly batches: AsyncIterable<readonly Row[]>;
  /** Figures of what was read; complete once `batches` is exhausted. */
  stats(): DayStreamStats;
}

export interface StreamDayOptions {
  /** Ascending order of the table's one integer key (the copy itself needs no order, so asks for none). */
  readonly inKeyOrder?: boolean;
  /**
   * The consumer paces its batches (a rate cap, a nice ratio): the source
   * then reads no further ahead than the batch asked for where it can, so
   * that the pace reaches the server, not only the warehouse. One statement
   * streaming a day runs ahead of its reader by whatever the connection's
   * buffers hold (megabytes: a whole day of a small table at full speed).
   */
  readonly paced?: boolean;
}

/**
 * The relational source (MySQL or MariaDB).
 *
 * Guarantees: identifiers reach SQL only after they are found in
 * information_schema and are always quoted; values are always bound. A "day"
 * is `column >= 'D 00:00:00' AND column < 'D+1 00:00:00'`, so every instant of
 * the day, including 23:59:59.999999, belongs to exactly one day.
 * Connection failures surface as TransientError.
 *
 * Leaves out: deleting rows (see the cleanup port), and rows whose filter
 * column is NULL or a zero date: they belong to no day and are never touched.
 */
export interface SourceDatabase {
  /** The table's schema from information_schema, or undefined when it does not exist. */
  describeTable(table: string): Promise<TableSchema | undefined>;
  /**
   * The first day in [from, before) on which `column` has a value, found with one
   * index probe (`MIN(column) WHERE column >= from AND column < before`).
   */
  firstDayWithRows(
    table: string,
    column: string,
    from: CalendarDay,
    before: CalendarDay,
  ): Promise<CalendarDay | undefined>;
  /**
   * `firstDayWithRows` for each of `froms`, in one round trip: one index probe
   * per entry, answered together. The planner sends a window of days at once.
   */
  firstDaysWithRows(
    table: string,
    column: string,
    froms: readonly CalendarDay[],
    before: CalendarDay,
  ): Promise<(CalendarDay | undefined)[]>;
  /**
   * Streams the rows of one day without holding the day in memory. With
   * `inKeyOrder`, for a table with one integer key (integerKeyColumn), the
   * rows come in ascending order of that key: a re-copy compares them with
   * the warehouse's keys read in the same order (Warehouse.dayKeys).
   */
  streamDay(
    schema: TableSchema,
    column: string,
    day: CalendarDay,
    batchRows: number,
    options?: StreamDayOptions,
  ): DayStream;
  /** Counts the day now: rows, its content fingerprint, and key figures when the key is one integer column. */
  dayFigures(schema: TableSchema, column: string, day: CalendarDay): Promise<DayFigures>;
  close(): Promise<void>;
}
