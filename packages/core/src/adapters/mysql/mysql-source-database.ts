import { InvalidInputError } from "../../errors";
import type { CalendarDay } from "../../model/calendar-day";
import type { SourceColumn, TableSchema } from "../../model/table-schema";
import { integerKeyColumn } from "../../model/table-schema";
import type { SourceDatabase } from "../../ports/source-database";
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
import { isDenseKeyRange } from "./key-range";
import type { MysqlErrorContext } from "./map-mysql-error";
import { readPlan } from "./read-plan";
import { clientRowHasher } from "./row-fingerprint";
import { queryRows, type SqlQuery } from "./sql-query";
import { streamRows } from "./stream-rows";
import type { AskOnConnection } from "./stream-snapshot";

/**
 * The SourceDatabase port on a pool made by createMysqlPool, whose options are
 * what make values arrive canonical. A day whose filter column leads an index
 * and whose integer keys are dense streams along the primary key (see
 * key-range.ts), other indexed days in filter-column order, the rest in
 * scan order (see dayRowsQuery); any of them in key order when asked
 * (`inKeyOrder`, a re-copy).
 */
export function createMysqlSourceDatabase(pool: MysqlPool): SourceDatabase {
  // Every task describes its table; the schema is read again only when the table's definition changed.
  const described = new Map<string, { readonly fingerprint: string; readonly schema: TableSchema }>();
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
      const byFilter = hashed(dayRowsQuery(schema, column, day, inKeyOrder ? key : undefined));
      const indexed = schema.indexLeadingColumns.includes(column);
      return streamRows(pool, {
        ...byFilter,
        ...(key && indexed
          ? {
              choose: async (ask: AskOnConnection) => {
                const [bounds] = await ask(dayKeyBoundsQuery(schema, column, day, key));
                const [min, max, rows] = bounds ?? [];
                if (min === null || min === undefined || max === null || max === undefined) return byFilter;
                const range = { min: String(min), max: String(max) };
                if (!isDenseKeyRange(range.min, range.max, Number(rows))) return byFilter;
                // Along the primary key: the same rows, half the server's work.
                return hashed(dayRowsByKeyQuery(schema, column, day, key, range, inKeyOrder));
              },
            }
          : {}),
        batchRows,
        zeroDateColumns: readPlan(schema).zeroDateColumns,
        floatColumns: readPlan(schema).floatColumns,
        hashed: hashRow ?? "server",
        ...(key ? { chunkKey: chunkKeyOf(schema, key) } : {}),
        context: { table: schema.name, column },
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
