import { type CalendarDay, isCalendarDay } from "../../model/calendar-day";
import { integerKeyColumn, type TableSchema } from "../../model/table-schema";
import type { PartitionedTable, PartitionRows } from "../../ports/partitioned-table";
import { figuresColumns, figuresOf } from "./day-queries";
import { dayCondition } from "./day-range";
import { DENSE_KEY_FACTOR, keyBoundsQuery, keyRangeCondition } from "./key-range";
import { createSliceFigures } from "./partition-slices";
import { quoteIdentifier } from "./quote-identifier";
import type { SqlQuery } from "./sql-query";

/** One statement on the adapter's pool, its rows as arrays, errors mapped (see createMysqlPartitionedTable). */
type Run = (sql: string, values?: readonly unknown[], table?: string) => Promise<unknown[][]>;

/**
 * How the partition adapter reads a partition's or a twin's rows by day:
 * their counts through the filter column's index, and their figures,
 * content fingerprints included, of a day, of all the rows in one pass, or
 * of a slice of them along the primary key.
 */
export function createPartitionDayReads(
  run: Run,
  from: (table: string, rows: PartitionRows) => string,
): Pick<PartitionedTable, "dayCounts" | "dayFigures" | "sliceFigures"> {
  /**
   * The primary key range of `range`'s rows, read through the filter column's
   * index alone (its entries hold the key), when the key leads with an integer
   * column and that range of the primary key holds at most DENSE_KEY_FACTOR
   * times the day's rows (a bounded probe: a key that leads with a column of
   * few values, a tenant's, spans far more rows than its day); undefined
   * otherwise.
   */
  async function primaryKeyRange(schema: TableSchema, rows: PartitionRows, range: SqlQuery) {
    const lead = schema.columns.find((column) => column.name === schema.primaryKey[0]);
    const kind = lead?.logicalType.kind;
    if (!lead || (kind !== "int32" && kind !== "int64" && kind !== "uint64")) return undefined;
    const k = quoteIdentifier(lead.name);
    const query = keyBoundsQuery(from(schema.name, rows), k, range);
    const [bounds] = await run(query.sql, query.values, schema.name);
    const [min, max, count] = bounds ?? [];
    if (min === null || min === undefined) return undefined;
    const keys = keyRangeCondition(k, kind === "uint64", String(min), String(max));
    const along = { hint: " FORCE INDEX (PRIMARY)", condition: ` AND ${keys.sql}`, values: keys.values };
    const most = Number(DENSE_KEY_FACTOR) * Number(count);
    const [spanned] = await run(
      `SELECT COUNT(*) FROM (SELECT 1 FROM ${from(schema.name, rows)}${along.hint} WHERE TRUE${along.condition} LIMIT ${most + 1}) AS probe`,
      along.values,
      schema.name,
    );
    return Number(spanned?.[0] ?? 0) <= most ? along : undefined;
  }

  return {
    async dayCounts(table, column, rows) {
      const c = quoteIdentifier(column);
      // Grouped by the day's number, which the server groups at half the cost of the day's text; each
      // group is named by the text of one of its values. TO_DAYS is NULL for NULL, zero and partial zero
      // dates (`2024-01-00`), so those rows make one group whose name is no calendar day: outside.
      const answer = await run(
        `SELECT DATE_FORMAT(MIN(${c}), '%Y-%m-%d'), COUNT(*) FROM ${from(table, rows)} GROUP BY TO_DAYS(${c})`,
        [],
        table,
      );
      return byCalendarDay(answer, ([count]) => Number(count));
    },

    async dayFigures(schema, column, rows, day) {
      const c = quoteIdentifier(column);
      const key = integerKeyColumn(schema)?.name;
      // One day's range holds that day's rows alone: nothing to group them by. All of the rows are grouped
      // as dayCounts groups them, read in the order they are stored, with no index to descend and no range
      // to probe.
      const range = day === undefined ? undefined : dayCondition(c, day);
      const along = range && (await primaryKeyRange(schema, rows, range));
      const answer = await run(
        range
          ? `SELECT ?, ${figuresColumns(schema, key)} FROM ${from(schema.name, rows)}${along?.hint ?? ""}
               WHERE ${range.sql}${along?.condition ?? ""}`
          : `SELECT DATE_FORMAT(MIN(${c}), '%Y-%m-%d'), ${figuresColumns(schema, key)} FROM ${from(schema.name, rows)}
               GROUP BY TO_DAYS(${c})`,
        range ? [day, ...range.values, ...(along?.values ?? [])] : [],
        schema.name,
      );
      return byCalendarDay(answer, (values) => figuresOf(values, key));
    },

    sliceFigures: createSliceFigures(run, from, (answer, key) =>
      byCalendarDay(answer, (values) => figuresOf(values, key)),
    ),
  };
}

/**
 * Rows of `[name, ...values]`, one per day, as days: each named by a calendar
 * day holding rows (its first value, a count, above 0) is read by `read`; the
 * rest, named by no calendar day (NULL and zero dates), add their count to
 * `outside`.
 */
function byCalendarDay<T>(
  answer: readonly unknown[][],
  read: (values: unknown[]) => T,
): { days: Map<CalendarDay, T>; outside: number } {
  const days = new Map<CalendarDay, T>();
  let outside = 0;
  for (const [name, ...values] of answer) {
    const rows = Number(values[0] ?? 0);
    if (rows === 0) continue;
    const text = name === null || name === undefined ? "" : String(name);
    if (isCalendarDay(text)) days.set(text, read(values));
    else outside += rows;
  }
  return { days, outside };
}
