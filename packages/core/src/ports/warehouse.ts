import type { CalendarDay } from "../model/calendar-day";
import type { DayFigures } from "../model/day-figures";
import type { Destination } from "../model/destination";
import type { Row, TableSchema } from "../model/table-schema";
import type { WarehouseDay, WarehouseDays } from "../model/warehouse-day";
import type { DayRecordEntry, DayRecordStore } from "./day-record";
import type { RunRecordStore } from "./run-history";

/** What replaceDay asks for the durable record entry of the day it wrote (see Warehouse.replaceDay). */
export type RecordReplacedDay = (written: {
  readonly rowsWritten: number;
  readonly figures?: DayFigures;
}) => Promise<DayRecordEntry>;

/**
 * The analytics warehouse (DuckDB locally, BigQuery in production).
 *
 * Guarantees: `replaceDay` is atomic per day: afterwards the day holds exactly
 * the streamed rows, and a failure at any point leaves the day as it was, so a
 * retry or a second copy never duplicates. Values keep the canonical meaning of
 * their LogicalType without rounding or truncation (docs/type-mapping.md).
 *
 * It also keeps the durable day record beside the data (DayRecordStore), and
 * the history of finished runs beside that (RunRecordStore).
 *
 * Every day operation names its day the same way, first: a WarehouseDay
 * (destination, filter column, day).
 *
 * Leaves out: rows outside the replaced day, and deleting anything but a day
 * being replaced.
 */
export interface Warehouse extends DayRecordStore, RunRecordStore {
  /**
   * Creates the dataset and the table from the source schema when missing
   * (partitioned by day of `filterColumn` where the warehouse partitions), adds
   * new source columns, and throws RefusalError on an incompatible change.
   */
  ensureTable(destination: Destination, schema: TableSchema, filterColumn: string): Promise<void>;
  /**
   * Replaces the whole day with `batches`; returns the rows the warehouse now
   * holds for the day. Fewer rows than the warehouse holds for the day is a
   * RefusalError that leaves the day as it was: a copied day never loses
   * rows to a source that no longer has them (cleanup may have deleted them).
   * When the warehouse can count them in the same transaction, it also
   * returns the day's figures for `keyColumn` (else callers ask `dayFigures`).
   *
   * `record`, when given, is asked for the day's durable record entry once the
   * rows are written (it may check them, and throw), and the entry is kept in
   * the durable record (DayRecordStore) before replaceDay returns: in the
   * replace's own transaction where the warehouse has one (DuckDB: a throw
   * leaves the day as it was), else right after the replace (BigQuery: a throw
   * leaves the day replaced but not recorded, as a copy killed in between).
   */
  replaceDay(
    at: WarehouseDay,
    schema: TableSchema,
    batches: AsyncIterable<readonly Row[]>,
    keyColumn?: string,
    record?: RecordReplacedDay,
  ): Promise<{ readonly rowsWritten: number; readonly figures?: DayFigures }>;
  /** Counts the day: rows, and key figures for `keyColumn` when given. */
  dayFigures(at: WarehouseDay, keyColumn?: string): Promise<DayFigures>;
  /**
   * `dayFigures` of several days of one table in one query (a partition's
   * days, for cleanup): an entry for every day asked, each exactly what
   * `dayFigures` answers for it.
   */
  daysFigures(at: WarehouseDays, keyColumn?: string): Promise<ReadonlyMap<CalendarDay, DayFigures>>;
  /**
   * The keys the day holds now, as canonical decimal text, in ascending
   * numeric order, in pages of at most `pageKeys`, each read only when the
   * iteration asks for it: a re-copy compares them with the source's rows
   * read in the same order to prove it keeps every row the warehouse holds,
   * without ever holding a whole day's keys (a day may have millions). Rows
   * without a key list none; an absent table holds none.
   */
  dayKeys(at: WarehouseDay, keyColumn: string, pageKeys: number): AsyncIterable<readonly string[]>;
  /** Whether the table exists; asking creates nothing. */
  hasTable(destination: Destination): Promise<boolean>;
  /** Rows in the whole table (0 when it does not exist). */
  countRows(destination: Destination): Promise<number>;
  close(): Promise<void>;
}
