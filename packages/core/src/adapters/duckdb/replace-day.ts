import type { DuckDBAppender, DuckDBConnection } from "@duckdb/node-api";
import { InvalidInputError, RefusalError } from "../../errors";
import type { DayFigures } from "../../model/day-figures";
import { formatDestination } from "../../model/destination";
import type { Row, TableSchema } from "../../model/table-schema";
import { formatWarehouseDay } from "../../model/warehouse-day";
import { shrinkRefusal } from "../warehouse/shrink-refusal";
import { ChunkWriter } from "./chunk-writer";
import { dayFiguresOn } from "./day-figures";
import {
  type DuckDbDay,
  dayPredicate,
  qualifiedName,
  rollback,
  tableColumns,
  type WarehouseColumn,
} from "./duckdb-catalog";

/** The day to replace, with what the replace needs to know of its table. */
export interface DayTarget {
  readonly at: DuckDbDay;
  readonly schema: TableSchema;
  /** The table's columns when already known (saves a catalog query per day). */
  readonly columns?: readonly WarehouseColumn[];
  /** The key whose figures are counted, in the same transaction, with the rows. */
  readonly keyColumn?: string;
  /**
   * Asked once the day is written and counted: a statement (the day's record entry) to run in the
   * transaction, sent with its COMMIT in one call. A throw, or the statement failing, rolls back.
   */
  readonly withCommit?: (figures: DayFigures) => Promise<string>;
}

/**
 * Replaces the day in one transaction on `connection`: delete the day, append
 * the batches, count the day, commit. Fewer rows appended than deleted means a
 * copied day about to lose rows: that rolls back (see Warehouse.replaceDay). The appender writes into the
 * connection's open transaction (its rows are invisible to other connections
 * and vanish on ROLLBACK), so any failure, including `batches` throwing
 * halfway, leaves the day exactly as it was. Returns the day's figures as
 * counted inside the transaction, just before it commits.
 */
export async function replaceDayInTransaction(
  connection: DuckDBConnection,
  target: DayTarget,
  batches: AsyncIterable<readonly Row[]>,
): Promise<DayFigures> {
  const { at } = target;
  const { destination, filterColumn, day } = at;
  const label = formatWarehouseDay(at);
  const deleteDay = `DELETE FROM ${qualifiedName(destination)} WHERE ${dayPredicate(filterColumn, day)}`;
  // Columns known from ensureTable are as current as a lookup here: schema changes go through it.
  const columns = target.columns ?? (await tableColumns(connection, destination));
  if (columns.length === 0) {
    throw new InvalidInputError(
      "destination",
      `${formatDestination(destination)} does not exist (ensureTable creates it)`,
    );
  }
  let appender: DuckDBAppender | undefined;
  try {
    // One call for both statements: a round trip less per day. DuckDB runs them in order and answers
    // the DELETE's count; if the DELETE fails, the transaction it opened is rolled back below.
    const deleted = await connection.run(`BEGIN TRANSACTION; ${deleteDay}`);
    appender = await connection.createAppender(destination.table, destination.dataset, destination.catalog);
    const writer = ChunkWriter.create(
      appender,
      columns.map((column) => column.name),
      target.schema,
      label,
    );
    let appended = 0;
    for await (const batch of batches) {
      writer.write(batch);
      appended += batch.length;
    }
    // The appender flushes into the transaction by itself as its buffer fills;
    // flushing every batch would cost more than the append (about 1.5 ms each).
    appender.closeSync();
    appender = undefined;
    if (appended < deleted.rowsChanged) throw shrinkRefusal(label, appended, deleted.rowsChanged);
    const figures = await dayFiguresOn(connection, at, target.keyColumn);
    const rows = figures.rows;
    if (rows !== appended) {
      throw new RefusalError(
        `${label}: appended ${appended} rows but the day holds ${rows}; ${appended - rows} rows lie outside the day or have no ${filterColumn}`,
      );
    }
    // One call for both: DuckDB stops at a statement that fails, so a record that cannot be
    // written never commits, and the catch below rolls the day back with it.
    const statement = await target.withCommit?.(figures);
    await connection.run(statement ? `${statement}; COMMIT` : "COMMIT");
    return figures;
  } catch (error) {
    discard(appender);
    await rollback(connection);
    throw error;
  }
}

/**
 * Drops rows the appender still buffers and closes it while the failed
 * transaction is still open, so nothing it held can be written outside it.
 * Errors are not reported: the transaction is rolled back next whatever
 * happens here, and the error that led here is the one worth seeing.
 */
function discard(appender: DuckDBAppender | undefined): void {
  if (!appender) return;
  for (const step of [() => appender.clear(), () => appender.closeSync()]) {
    try {
      step();
    } catch {
      // See above: the rollback that follows discards whatever is left.
    }
  }
}
