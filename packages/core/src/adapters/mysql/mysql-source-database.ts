import { InvalidInputError } from "../../errors";
import type { CalendarDay } from "../../model/calendar-day";
import type { SourceColumn, TableSchema } from "../../model/table-schema";
import { integerKeyColumn } from "../../model/table-schema";
import type { DayStream, SourceDatabase } from "../../ports/source-database";
import type { MysqlPool } from "./create-mysql-pool";
import {
  dayFiguresQuery,
  dayKeyBoundsQuery,
  dayRowsByKeyQuery,
  dayRowsQuery,
  figuresOf,
  firstValueQuery,
  firstValuesQuery,
  withRowHashes,
} from "./day-queries";
import { firstDayAfterZeroDate, isZeroDate } from "./day-range";
import { introspectTable, tableFingerprint } from "./introspect-table";
import { isDenseKeyRange, keyRangePages } from "./key-range";
import type { MysqlErrorContext } from "./map-mysql-error";
import { readPlan } from "./read-plan";
import { clientRowHasher, type RowHasher } from "./row-fingerprint";
import { queryRows, type SqlQuery } from "./sql-query";
import { streamRows } from "./stream-rows";
import type { AskOnConnection } from "./stream-snapshot";

/**
 * Below this many rows a day is not worth asking for its key bounds first:
 * the question takes four statements (isolation, snapshot, bounds, COMMIT),
 * about a millisecond of CPU between client and server. Measured on 2 cores:
 * days of 10 rows cost 0.7-1 ms less each without it, while the demo's days
 * of about 260 rows copied some 8% slower by the filter column than along the
 * key (the server's saving alone, 1.3 µs a row, would not explain that).
 */
const SMALL_DAY_ROWS = 100;

/**
 * The SourceDatabase port on a pool made by createMysqlPool, whose options are
 * what make values arrive canonical. A day whose filter column leads an index
 * and whose integer keys are dense streams along the primary key (see
 * key-range.ts), other indexed days in filter-column order, the rest in
 * scan order (see dayRowsQuery); any of them in key order when asked
 * (`inKeyOrder`, a re-copy). Whether a day's keys are dense is asked only
 * when the table's last day read here was not small (SMALL_DAY_ROWS): a table
 * of small days reads each in one statement, in filter-column order.
 */
export function createMysqlSourceDatabase(pool: MysqlPool): SourceDatabase {
  // Every task describes its table; the schema is read again only when the table's definition changed.
  const described = new Map<string, { readonly fingerprint: string; readonly schema: TableSchema }>();
  // Per table, the rows of the last day read: days of a table tend to be alike, so it tells whether the
  // next is worth asking about. A table not read yet is asked about.
  const lastDayRows = new Map<string, number>();
  const source: SourceDatabase = {
    async describeTable(table) {
      const fingerprint = await tableFingerprint(pool, table);
      const known = described.get(table);
      if (fingerprint !== undefined && known?.fingerprint === fingerprint) return known.schema;
      described.delete(table);
      const schema = await introspectTable(pool, table);
      // A change between the two reads leaves a fingerprint older than the schema: the next call reads again.
      if (schema && fingerprint !== undefined) described.set(table, { fingerprint, schema });
      return schema;
    },

    async firstDaysWithRows(table, column, froms, before) {
      if (froms.length === 0) return [];
      const firsts = await queryRow(pool, firstValuesQuery(table, column, froms, before), { table, column });
      // A partial zero date names no day: probe on from the day after it, once for each such date
      // however many probes of the window ran into it.
      const afterZeroDates = new Map<string, Promise<CalendarDay | undefined>>();
      return Promise.all(
        froms.map((_, index) => {
          const first = firsts[index];
          if (first === null || first === undefined) return undefined;
          const value = String(first);
          if (!isZeroDate(value)) return value.slice(0, 10);
          let next = afterZeroDates.get(value);
          if (!next) {
            next = source.firstDayWithRows(table, column, firstDayAfterZeroDate(value), before);
            afterZeroDates.set(value, next);
          }
          return next;
        }),
      );
    },

    async firstDayWithRows(table, column, from, before) {
      let start = from;
      // Partial zero dates (2020-05-00) sort among real dates but name no day;
      // each one found moves the probe on to the next real day.
      while (start < before) {
        const [first] = await queryRow(pool, firstValueQuery(table, column, start, before), {
          table,
          column,
        });
        if (first === null || first === undefined) return undefined;
        const value = String(first);
        if (!isZeroDate(value)) return value.slice(0, 10);
        start = firstDayAfterZeroDate(value);
      }
      return undefined;
    },

    streamDay(schema, column, day, batchRows, options) {
      requireColumn(schema, column);
      // The archiver hashes each row it receives; the server only when the archiver cannot (clientRowHasher).
      const hashRow = clientRowHasher(schema);
      const hashed = (rows: SqlQuery) => (hashRow ? rows : withRowHashes(schema, rows));
      const key = integerKeyColumn(schema);
      const inKeyOrder = options?.inKeyOrder === true && key !== undefined;
      const byFilter = {
        ...hashed(dayRowsQuery(schema, column, day, inKeyOrder ? key : undefined)),
        inKeyOrder,
      };
      const read = readOptions(schema, column, key, hashRow, batchRows);
      if (!key || !schema.indexLeadingColumns.includes(column))
        return streamRows(pool, { ...byFilter, ...read });
      // A paced read asks for the day's keys whatever the last day held: a large day after small ones must not
      // be read ahead of the pace.
      if (!options?.paced && (lastDayRows.get(schema.name) ?? SMALL_DAY_ROWS) < SMALL_DAY_ROWS) {
        const stream = streamRows(pool, { ...byFilter, ...read });
        return afterLastBatch(stream, (rows) => lastDayRows.set(schema.name, rows));
      }
      return streamRows(pool, {
        ...byFilter,
        ...read,
        choose: async (ask: AskOnConnection) => {
          const [bounds] = await ask(dayKeyBoundsQuery(schema, column, day, key));
          const [min, max, rows] = bounds ?? [];
          lastDayRows.set(schema.name, Number(rows ?? 0));
          if (min === null || min === undefined || max === null || max === undefined) return byFilter;
          const range = { min: String(min), max: String(max) };
          if (!isDenseKeyRange(range.min, range.max, Number(rows))) return byFilter;
          // Along the primary key: the same rows, half the server's work. Ordered by it too, which sorts
          // nothing and lets the stream cut the day's key chunks as the rows come, keeping no key.
          const byKey = (keys: typeof range) =>
            hashed(dayRowsByKeyQuery(schema, column, day, key, keys, true));
          // A paced reader reads a batch's range of keys at a time (at most a batch of rows each).
          function* pages() {
            for (const keys of keyRangePages(range.min, range.max, batchRows)) yield byKey(keys);
          }
          return { ...byKey(range), inKeyOrder: true, ...(options?.paced ? { pages: pages() } : {}) };
        },
      });
    },

    async dayFigures(schema, column, day) {
      requireColumn(schema, column);
      const context = { table: schema.name, column };
      const key = integerKeyColumn(schema)?.name;
      return figuresOf(await queryRow(pool, dayFiguresQuery(schema, column, day, key), context), key);
    },

    close: () => pool.end(),
  };
  return source;
}

/** How a day's rows are read and checked, whichever statement reads them. */
function readOptions(
  schema: TableSchema,
  column: string,
  key: SourceColumn | undefined,
  hashRow: RowHasher | undefined,
  batchRows: number,
) {
  const { zeroDateColumns, floatColumns } = readPlan(schema);
  return {
    batchRows,
    zeroDateColumns,
    floatColumns,
    hashed: hashRow ?? ("server" as const),
    ...(key ? { chunkKey: chunkKeyOf(schema, key) } : {}),
    context: { table: schema.name, column },
  };
}

/** `stream`, telling `done` how many rows it read once its last batch was taken. */
function afterLastBatch(stream: DayStream, done: (rows: number) => void): DayStream {
  return {
    batches: {
      async *[Symbol.asyncIterator]() {
        yield* stream.batches;
        done(stream.stats().rows);
      },
    },
    stats: () => stream.stats(),
  };
}

/** Where the key sits in a streamed row (the columns' order), and whether it needs 64 unsigned bits. */
function chunkKeyOf(schema: TableSchema, key: SourceColumn) {
  return { index: schema.columns.indexOf(key), unsigned: key.logicalType.kind === "uint64" };
}

async function queryRow(
  pool: MysqlPool,
  query: SqlQuery,
  context: MysqlErrorContext,
): Promise<readonly unknown[]> {
  return (await queryRows(pool, query, context))[0] ?? [];
}

function requireColumn(schema: TableSchema, column: string): void {
  if (!schema.columns.some((c) => c.name === column)) {
    throw new InvalidInputError("column", `column "${column}" does not exist in table "${schema.name}"`);
  }
}
