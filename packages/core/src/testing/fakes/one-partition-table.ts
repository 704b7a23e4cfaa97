import type { CalendarDay } from "../../model/calendar-day";
import type { DayFigures } from "../../model/day-figures";
import type { Row } from "../../model/table-schema";
import type { PartitionedTable, PartitionRows } from "../../ports/partitioned-table";
import { columnIndex, dayOfValue, figuresOf } from "./memory-rows";
import type { MemorySource } from "./memory-source";

/**
 * One table of the in-memory source seen as range-partitioned on `column`:
 * `p_old`, the rows before `below` (and those on no day), which can be
 * exchanged with a twin, and `pmax`, the rest. Enough to run a partition
 * cleanup's whole path without MySQL (the function-access trace runs it to
 * list the ports it calls); every other table is unpartitioned. Nothing here
 * checks what the MySQL adapter would refuse: that is tested on MariaDB.
 */
export function createOnePartitionTable(
  source: MemorySource,
  partitioned: { readonly table: string; readonly column: string; readonly below: string },
): PartitionedTable {
  const twins = new Map<string, Row[]>();
  const twinName = (table: string, partition: string) => `archiver_twin__${table}__${partition}`;
  const isOld = (table: string) => {
    const index = columnIndex(source.schemaOf(table), partitioned.column);
    return (row: Row) => dayOfValue(row[index]) === undefined || String(row[index]) < partitioned.below;
  };
  const inPartition = (table: string, partition: string) => {
    const old = isOld(table);
    return (row: Row) => (partition === "p_old" ? old(row) : !old(row));
  };
  const rowsOf = (table: string, rows: PartitionRows): Row[] =>
    "twinOf" in rows
      ? (twins.get(twinName(table, rows.twinOf)) ?? [])
      : source.rows(table).filter(inPartition(table, rows.partition));
  const byDay = (table: string, column: string, rows: readonly Row[]) => {
    const index = columnIndex(source.schemaOf(table), column);
    const days = new Map<CalendarDay, Row[]>();
    const outside: Row[] = [];
    for (const row of rows) {
      const day = dayOfValue(row[index]);
      if (day === undefined) {
        outside.push(row);
        continue;
      }
      const held = days.get(day) ?? [];
      held.push(row);
      days.set(day, held);
    }
    return { days, outside };
  };
  return {
    partitioning: async (table) =>
      table === partitioned.table
        ? {
            kind: "range",
            column: partitioned.column,
            partitions: [
              { name: "p_old", below: partitioned.below },
              { name: "pmax", below: undefined },
            ],
          }
        : { kind: "none" },
    mayExchange: async () => ({ ok: true }),
    insertTriggers: async () => [],
    secondsSinceWrite: async () => undefined,
    async dayCounts(table, column, rows) {
      const { days, outside } = byDay(table, column, rowsOf(table, rows));
      return { days: new Map([...days].map(([day, held]) => [day, held.length])), outside: outside.length };
    },
    async dayFigures(schema, column, rows, day) {
      const grouped = byDay(schema.name, column, rowsOf(schema.name, rows));
      const days = new Map<CalendarDay, DayFigures>();
      for (const [held, dayRows] of grouped.days) {
        if (day === undefined || held === day) days.set(held, figuresOf(schema, dayRows));
      }
      return { days, outside: day === undefined ? grouped.outside.length : 0 };
    },
    async sliceFigures(schema, column, rows, { after, upTo, limit }) {
      // Rows in key order (each key column's text compared as a number when it is one, else as text).
      const key = schema.primaryKey.map((name) => columnIndex(schema, name));
      const text = (row: Row) => key.map((index) => String(row[index]));
      const compare = (a: readonly string[], b: readonly string[]) => {
        for (const [i, x] of a.entries()) {
          const y = b[i] ?? "";
          if (x !== y)
            return /^-?\d+$/.test(x) && /^-?\d+$/.test(y) ? (BigInt(x) < BigInt(y) ? -1 : 1) : x < y ? -1 : 1;
        }
        return 0;
      };
      const sorted = rowsOf(schema.name, rows)
        .filter((row) => !after || compare(text(row), after) > 0)
        .sort((a, b) => compare(text(a), text(b)));
      const bound = upTo === undefined ? sorted[limit - 1] : undefined;
      const end = upTo ?? (bound ? text(bound) : undefined);
      const slice = end ? sorted.filter((row) => compare(text(row), end) <= 0) : sorted;
      const figures = byDay(schema.name, column, slice);
      const days = new Map([...figures.days].map(([day, held]) => [day, figuresOf(schema, held)] as const));
      return { figures: { days, outside: figures.outside.length }, ...(end ? { last: end } : {}) };
    },
    twinName,
    twinRows: async (table, partition) => twins.get(twinName(table, partition))?.length,
    describeDetach: (table, partition) =>
      `ALTER TABLE ${table} EXCHANGE PARTITION ${partition} WITH TABLE ${twinName(table, partition)}`,
    async detach(table, partition) {
      twins.set(twinName(table, partition), rowsOf(table, { partition }));
      source.deleteRows(table, inPartition(table, partition));
    },
    async putBack(table, partition) {
      const rows = twins.get(twinName(table, partition)) ?? [];
      source.insertRows(table, rows);
      twins.set(twinName(table, partition), []);
      return rows.length;
    },
    async dropTwin(table, partition) {
      twins.delete(twinName(table, partition));
    },
    detachedTwins: async () =>
      [...twins].map(([twin, rows]) => ({
        table: partitioned.table,
        partition: twin.split("__").at(-1) ?? "",
        twin,
        rows: rows.length,
      })),
    detachedPartitions: async (table) =>
      table === partitioned.table ? [...twins.keys()].map((twin) => twin.split("__").at(-1) ?? "") : [],
  };
}
