import { InvalidInputError } from "../../errors";
import type { CalendarDay } from "../../model/calendar-day";
import { integerKeyColumn, type Row, type TableSchema } from "../../model/table-schema";
import type { DayStream, DayStreamStats, SourceDatabase } from "../../ports/source-database";
import { columnIndex, dayOfValue, figuresOf, fingerprintOf, isZeroDateText, rowBytes } from "./memory-rows";

/**
 * An in-memory SourceDatabase whose tables a test writes directly. It passes
 * the SourceDatabase contract (source-database-contract.ts), as the MySQL
 * adapter does.
 *
 * Rows are held per table in the positions of the table's schema, in
 * canonical values (see LogicalType), except that a DATE or DATETIME value may
 * be a zero or partial zero date (`0000-00-00 00:00:00`, `2020-05-00`): such a
 * filter value belongs to no day, and streaming turns such a value into null
 * and counts it in `zeroDates`, as the MySQL reader does.
 *
 * The content fingerprint is the fake's own (a sum of SHA-256-based 64-bit
 * row hashes, see memory-rows.ts): it is self-consistent (the stream, the day
 * figures and createMemoryDayDeleter's chunks agree, and it changes with any
 * value of any column) but never equals MySQL's for the same rows.
 *
 * Unlike the adapter it never fails for want of a connection, and streams in
 * the order rows were written (in key order when asked: `inKeyOrder`).
 */
export interface MemorySource extends SourceDatabase {
  /** Creates the table (replacing one of the same name) holding `rows`. */
  createTable(schema: TableSchema, rows?: readonly Row[]): void;
  dropTable(table: string): void;
  /** Adds rows at the end of the table. */
  insertRows(table: string, rows: readonly Row[]): void;
  /** Copies of the table's rows now, in the order written. */
  rows(table: string): Row[];
  /** Deletes the rows `match` selects; returns how many. */
  deleteRows(table: string, match: (row: Row) => boolean): number;
  /** Replaces each row `match` selects with `change(row)`; returns how many. */
  updateRows(table: string, match: (row: Row) => boolean, change: (row: Row) => Row): number;
  /** The schema the table was created with; InvalidInputError when there is no such table. */
  schemaOf(table: string): TableSchema;
}

interface StoredTable {
  readonly schema: TableSchema;
  rows: Row[];
}

export function createMemorySource(): MemorySource {
  const tables = new Map<string, StoredTable>();
  let closed = false;

  function stored(table: string): StoredTable {
    if (closed) throw new Error("the in-memory source is closed");
    const found = tables.get(table);
    if (!found)
      throw new InvalidInputError("table", `table "${table}" does not exist in the source database`);
    return found;
  }

  function checked(schema: TableSchema, rows: readonly Row[]): Row[] {
    return rows.map((row) => {
      if (row.length !== schema.columns.length) {
        throw new Error(`${schema.name}: a row of ${row.length} values for ${schema.columns.length} columns`);
      }
      return Object.freeze([...row]);
    });
  }

  /** The stored rows of `day`, by the filter `column` of the table as stored. */
  function dayRows(table: string, column: string, day: CalendarDay): Row[] {
    const { schema, rows } = stored(table);
    const index = columnIndex(schema, column);
    return rows.filter((row) => dayOfValue(row[index]) === day);
  }

  function firstDay(table: string, column: string, from: CalendarDay, before: CalendarDay) {
    const { schema, rows } = stored(table);
    const index = columnIndex(schema, column);
    let first: CalendarDay | undefined;
    for (const row of rows) {
      const day = dayOfValue(row[index]);
      if (day !== undefined && day >= from && day < before && (first === undefined || day < first)) {
        first = day;
      }
    }
    return first;
  }

  return {
    createTable(schema, rows = []) {
      tables.set(schema.name, { schema, rows: checked(schema, rows) });
    },
    dropTable(table) {
      tables.delete(table);
    },
    insertRows(table, rows) {
      const target = stored(table);
      target.rows.push(...checked(target.schema, rows));
    },
    rows: (table) => stored(table).rows.map((row) => [...row]),
    deleteRows(table, match) {
      const target = stored(table);
      const before = target.rows.length;
      target.rows = target.rows.filter((row) => !match(row));
      return before - target.rows.length;
    },
    updateRows(table, match, change) {
      const target = stored(table);
      let changed = 0;
      target.rows = target.rows.map((row) => {
        if (!match(row)) return row;
        changed += 1;
        return checked(target.schema, [change(row)])[0] as Row;
      });
      return changed;
    },
    schemaOf: (table) => stored(table).schema,

    async describeTable(table) {
      if (closed) throw new Error("the in-memory source is closed");
      return tables.get(table)?.schema;
    },
    async firstDayWithRows(table, column, from, before) {
      return firstDay(table, column, from, before);
    },
    async firstDaysWithRows(table, column, froms, before) {
      return froms.map((from) => firstDay(table, column, from, before));
    },
    streamDay(schema, column, day, batchRows, options) {
      columnIndex(schema, column);
      const key = options?.inKeyOrder ? integerKeyColumn(schema) : undefined;
      const read = () => dayRows(schema.name, column, day);
      return streamRows(
        schema,
        key ? () => inKeyOrder(read(), schema.columns.indexOf(key)) : read,
        batchRows,
      );
    },
    async dayFigures(schema, column, day) {
      columnIndex(schema, column);
      return figuresOf(schema, dayRows(schema.name, column, day));
    },
    async close() {
      closed = true;
    },
  };
}

/** `rows` sorted by the integer key at `index`, as numbers (`10` after `9`). */
function inKeyOrder(rows: Row[], index: number): Row[] {
  const keyOf = (row: Row) => BigInt(String(row[index]));
  return rows.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
}

/** The day's rows read once, when iterated, in batches of at most `batchRows`, zero dates turned to null. */
function streamRows(schema: TableSchema, read: () => Row[], batchRows: number): DayStream {
  const stats = { rows: 0, bytes: 0, zeroDates: 0, fingerprint: "" };
  const dateColumns = schema.columns.flatMap((column, index) =>
    column.logicalType.kind === "datetime" || column.logicalType.kind === "date" ? [index] : [],
  );
  async function* batches(): AsyncGenerator<readonly Row[]> {
    const rows = read();
    const size = Math.max(1, batchRows);
    for (let start = 0; start < rows.length; start += size) {
      const batch = rows.slice(start, start + size).map((row) => {
        const out = [...row];
        for (const index of dateColumns) {
          if (isZeroDateText(out[index])) {
            out[index] = null;
            stats.zeroDates += 1;
          }
        }
        stats.bytes += rowBytes(row);
        return out;
      });
      stats.rows += batch.length;
      yield batch;
    }
    stats.fingerprint = fingerprintOf(schema, rows);
  }
  return {
    batches: { [Symbol.asyncIterator]: batches },
    stats: (): DayStreamStats => ({ ...stats }),
  };
}
