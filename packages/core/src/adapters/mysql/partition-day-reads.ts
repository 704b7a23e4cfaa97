import { addDays, type CalendarDay, isCalendarDay, startOfDay } from "../../domain/days/calendar-day";
import type { DayFigures } from "../../domain/types/day-figures";
import { integerKeyColumn, type TableSchema } from "../../domain/types/table-schema";
import type { PartitionedTable, PartitionRows } from "../../ports/partitioned-table";
import { figuresColumns, figuresOf } from "./day-queries";
import { dayCondition, type SqlCondition } from "./day-range";
import { DENSE_KEY_FACTOR, integerText } from "./key-range";
import { quoteIdentifier } from "./quote-identifier";

/** One statement on the adapter's pool, its rows as arrays, errors mapped (see createMysqlPartitionedTable). */
type Run = (sql: string, values?: unknown[], table?: string) => Promise<unknown[][]>;

/**
 * How the partition adapter reads a partition's or a twin's rows by day:
 * their counts through the filter column's index, and their figures,
 * content fingerprints included, of a day, of a span of days, or of all the
 * rows in one pass.
 */
export function createPartitionDayReads(
  run: Run,
  from: (table: string, rows: PartitionRows) => string,
): Pick<PartitionedTable, "dayCounts" | "dayFigures"> {
  /**
   * The primary key range of `range`'s rows, read through the filter column's
   * index alone (its entries hold the key), when the key leads with an integer
   * column and that range of the primary key holds at most DENSE_KEY_FACTOR
   * times the range's rows (a bounded probe: a key that leads with a column of
   * few values, a tenant's, spans far more rows than its days); undefined
   * otherwise.
   */
  async function primaryKeyRange(schema: TableSchema, rows: PartitionRows, range: SqlCondition) {
    const lead = schema.columns.find((column) => column.name === schema.primaryKey[0]);
    const kind = lead?.logicalType.kind;
    if (!lead || (kind !== "int32" && kind !== "int64" && kind !== "uint64")) return undefined;
    const k = quoteIdentifier(lead.name);
    const [bounds] = await run(
      `SELECT CAST(MIN(${k}) AS CHAR), CAST(MAX(${k}) AS CHAR), COUNT(*) FROM ${from(schema.name, rows)} WHERE ${range.sql}`,
      [...range.values],
      schema.name,
    );
    const [min, max, count] = bounds ?? [];
    if (min === null || min === undefined) return undefined;
    const cast = kind === "uint64" ? "UNSIGNED" : "SIGNED";
    const along = {
      hint: " FORCE INDEX (PRIMARY)",
      condition: ` AND ${k} >= CAST(? AS ${cast}) AND ${k} <= CAST(? AS ${cast})`,
      values: [integerText(String(min)), integerText(String(max))],
    };
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
      const days = new Map<CalendarDay, number>();
      let outside = 0;
      for (const [day, count] of answer) {
        const name = day === null ? "" : String(day);
        if (isCalendarDay(name)) days.set(name, Number(count));
        else outside += Number(count);
      }
      return { days, outside };
    },

    async dayFigures(schema, column, rows, span) {
      const c = quoteIdentifier(column);
      const key = integerKeyColumn(schema)?.name;
      const days = new Map<CalendarDay, DayFigures>();
      const table = from(schema.name, rows);
      if (span && span.first === span.last) {
        // One day's range holds that day's rows alone: nothing to group them by.
        const range = dayCondition(c, span.first);
        const along = await primaryKeyRange(schema, rows, range);
        const [values = []] = await run(
          `SELECT ${figuresColumns(schema, key)} FROM ${table}${along?.hint ?? ""}
             WHERE ${range.sql}${along?.condition ?? ""}`,
          [...range.values, ...(along?.values ?? [])],
          schema.name,
        );
        if (Number(values[0] ?? 0) > 0) days.set(span.first, figuresOf(values, key));
        return { days, outside: 0 };
      }
      // Grouped by the day's number, named by the text of one of its values, as dayCounts groups them.
      const select = `SELECT DATE_FORMAT(MIN(${c}), '%Y-%m-%d'), ${figuresColumns(schema, key)} FROM ${table}`;
      let answer: unknown[][];
      if (span) {
        const range = {
          sql: `${c} >= ? AND ${c} < ?`,
          values: [startOfDay(span.first), startOfDay(addDays(span.last, 1))],
        };
        const along = await primaryKeyRange(schema, rows, range);
        answer = await run(
          `${select}${along?.hint ?? ""} WHERE ${range.sql}${along?.condition ?? ""} GROUP BY TO_DAYS(${c})`,
          [...range.values, ...(along?.values ?? [])],
          schema.name,
        );
      } else {
        // All of the rows, in the order they are stored: no index to descend, no range to probe.
        answer = await run(`${select} GROUP BY TO_DAYS(${c})`, [], schema.name);
      }
      let outside = 0;
      for (const [name, ...values] of answer) {
        const text = name === null ? "" : String(name);
        if (isCalendarDay(text)) days.set(text, figuresOf(values, key));
        else outside += Number(values[0]);
      }
      return { days, outside };
    },
  };
}
