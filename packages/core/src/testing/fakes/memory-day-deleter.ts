import { addDays, startOfDay } from "../../model/calendar-day";
import type { ChunkTarget, DayChunk } from "../../model/day-chunks";
import type { Row } from "../../model/table-schema";
import type { DayDeleter, DeleteSideEffects, ReferenceCount, ReferencingKey } from "../../ports/day-deleter";
import { columnIndex, dayOfValue, fingerprintOf, keyOf } from "./memory-rows";
import type { MemorySource } from "./memory-source";

/** A DayDeleter on a MemorySource, whose foreign keys, triggers and references a test declares. */
export interface MemoryDayDeleter extends DayDeleter {
  /** The table's referencing foreign keys and DELETE triggers from now on (none until set). */
  setSideEffects(table: string, effects: DeleteSideEffects): void;
  /**
   * Rows outside the cleaned table that reference it through `constraint`:
   * one per value of `referenced`, each the value of the key's first parent
   * column it points at. Replaces what was set before.
   */
  setReferences(constraint: string, referenced: readonly string[]): void;
}

const NONE: DeleteSideEffects = { referencingKeys: [], deleteTriggers: [] };

/** A row of the table with what it is ordered and cut by. */
interface Entry {
  readonly row: Row;
  readonly at: string;
  readonly key: bigint;
}

/**
 * Deletes days of a MemorySource's tables as the port promises: chunks are
 * planned in rising key (or filter value) order with the source's own
 * fingerprint, and a chunk is deleted only when its rows are still exactly
 * the planned ones, the table gained no foreign key or trigger, and nothing
 * references its rows; otherwise nothing is deleted. References from other
 * tables are the ones setReferences declares; those of a self-referencing
 * key are read from the table's own rows, newer rows of the rows in question
 * not counting (they are deleted first). Leaves out what only a database
 * has: locks, transactions and ON DELETE rules (a reference always refuses,
 * so `newestFirst` changes nothing here).
 */
export function createMemoryDayDeleter(source: MemorySource): MemoryDayDeleter {
  const effects = new Map<string, DeleteSideEffects>();
  const references = new Map<string, readonly string[]>();

  /** Every row of the target's table, each with what it is ordered and cut by. */
  function tableRows(target: ChunkTarget): Entry[] {
    const { scope, by } = target;
    const schema = source.schemaOf(scope.table);
    const filter = columnIndex(schema, scope.column);
    const key = by.kind === "key" ? columnIndex(schema, by.column) : -1;
    return source
      .rows(scope.table)
      .map((row) => ({ row, at: String(row[filter]), key: key < 0 ? 0n : keyOf(row, key) }));
  }

  /** The rows of the target's day among `rows`, in the target's order. */
  function dayRows(target: ChunkTarget, rows = tableRows(target)): Entry[] {
    const filter = columnIndex(source.schemaOf(target.scope.table), target.scope.column);
    return rows
      .filter(({ row }) => dayOfValue(row[filter]) === target.scope.day)
      .sort((a, b) => (target.by.kind === "key" ? compare(a.key, b.key) : compare(a.at, b.at)));
  }

  function inChunk(target: ChunkTarget, chunk: DayChunk) {
    return ({ at, key }: Entry) =>
      target.by.kind === "key"
        ? key >= BigInt(chunk.first) && key <= BigInt(chunk.last)
        : at >= chunk.first && at <= chunk.last;
  }

  /** Per key, the rows that reference `members` (entries of `all`, every row of the table). */
  function referencing(
    target: ChunkTarget,
    keys: readonly ReferencingKey[],
    members: readonly Entry[],
    all: readonly Entry[],
  ) {
    const schema = source.schemaOf(target.scope.table);
    const later = (a: Entry, b: Entry) => (target.by.kind === "key" ? a.key > b.key : a.at > b.at);
    return keys.map((key): ReferenceCount => {
      const parent = columnIndex(schema, key.parentColumns[0] ?? "");
      if (!key.selfReferencing) {
        const values = new Set(members.map(({ row }) => String(row[parent])));
        return { key, rows: (references.get(key.constraint) ?? []).filter((v) => values.has(v)).length };
      }
      const child = columnIndex(schema, key.childColumns[0] ?? "");
      const children = new Map<string, Entry[]>();
      for (const entry of all) {
        const value = entry.row[child];
        if (value === null || value === undefined) continue;
        children.set(String(value), [...(children.get(String(value)) ?? []), entry]);
      }
      const inSet = new Set(members);
      let rows = 0;
      for (const member of members) {
        for (const entry of children.get(String(member.row[parent])) ?? []) {
          if (!(inSet.has(entry) && later(entry, member))) rows += 1;
        }
      }
      return { key, rows };
    });
  }

  return {
    setSideEffects: (table, set) => effects.set(table, set),
    setReferences: (constraint, referenced) => references.set(constraint, [...referenced]),

    async sideEffects(table) {
      return effects.get(table) ?? NONE;
    },

    async countReferences(target, keys) {
      const all = tableRows(target);
      return referencing(target, keys, dayRows(target, all), all);
    },

    async planChunks(target, chunkRows) {
      if (!Number.isSafeInteger(chunkRows) || chunkRows < 1)
        throw new Error(`chunk size must be a positive integer, got ${chunkRows}`);
      const rows = dayRows(target);
      // As the MySQL plan numbers them: key chunks by row number DIV chunkRows; time chunks per
      // instant, by the rows before that instant DIV chunkRows, so one instant is never split.
      const groups = new Map<number, typeof rows>();
      let before = 0;
      for (const [index, entry] of rows.entries()) {
        if (rows[index - 1]?.at !== entry.at) before = index;
        const group = Math.floor((target.by.kind === "key" ? index : before) / chunkRows);
        const members = groups.get(group);
        if (members) members.push(entry);
        else groups.set(group, [entry]);
      }
      return [...groups.values()].map((group) => chunkOf(target, group));
    },

    async deleteChunk(target, chunk, sideEffects) {
      const { scope } = target;
      const all = tableRows(target);
      const day = dayRows(target, all);
      const found = day.filter(inChunk(target, chunk));
      const figures = chunkOf(target, found);
      if (chunk.wholeDay && day.length !== found.length) {
        return { kind: "changed", rows: day.length, fingerprint: figures.fingerprint };
      }
      if (found.length === 0) return { kind: "absent" };
      if (
        found.length !== chunk.rows ||
        figures.fingerprint !== chunk.fingerprint ||
        (chunk.sum !== undefined && figures.sum !== chunk.sum)
      ) {
        const sum = chunk.sum !== undefined ? { sum: figures.sum } : {};
        return { kind: "changed", rows: found.length, fingerprint: figures.fingerprint, ...sum };
      }
      const now = effects.get(scope.table) ?? NONE;
      const added = {
        referencingKeys: now.referencingKeys.filter(
          (key) => !sideEffects.referencingKeys.some((known) => known.constraint === key.constraint),
        ),
        deleteTriggers: now.deleteTriggers.filter((name) => !sideEffects.deleteTriggers.includes(name)),
      };
      if (added.referencingKeys.length > 0 || added.deleteTriggers.length > 0)
        return { kind: "side-effects-added", added };
      const counts = referencing(target, sideEffects.referencingKeys, found, all).filter(
        (count) => count.rows > 0,
      );
      if (counts.length > 0) return { kind: "referenced", references: counts };
      const gone = new Set(found.map(({ row }) => JSON.stringify(row)));
      const deleted = source.deleteRows(scope.table, (row) => gone.has(JSON.stringify(row)));
      return { kind: "deleted", rows: deleted };
    },

    describeDelete(scope, range) {
      const column = `\`${scope.column}\``;
      const next = addDays(scope.day, 1);
      // As MySQL's day condition: on a month's last day, partial zero dates (`2024-02-00`) sort
      // inside the range, and stay out.
      const noZero = next.endsWith("-01") ? ` AND MONTH(${column}) <> 0 AND DAYOFMONTH(${column}) <> 0` : "";
      const keyed = range ? ` AND \`${range.column}\` BETWEEN ${range.min} AND ${range.max}` : "";
      return (
        `DELETE FROM \`${scope.table}\` WHERE ${column} >= '${startOfDay(scope.day)}' ` +
        `AND ${column} < '${startOfDay(next)}'${noZero}${keyed}`
      );
    },
  };
}

function chunkOf(target: ChunkTarget, group: readonly Entry[]) {
  const schema = target.schema;
  const fingerprint = fingerprintOf(
    schema,
    group.map(({ row }) => row),
  );
  const rows = group.length;
  if (target.by.kind === "time") {
    return { first: group[0]?.at ?? "", last: group.at(-1)?.at ?? "", rows, fingerprint };
  }
  return {
    first: String(group[0]?.key ?? ""),
    last: String(group.at(-1)?.key ?? ""),
    rows,
    fingerprint,
    sum: group.reduce((sum, { key }) => sum + key, 0n).toString(),
  };
}

function compare<T extends string | bigint>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
