import { addDays, startOfDay } from "../../domain/days/calendar-day";
import type { Row } from "../../domain/types/table-schema";
import type {
  ChunkTarget,
  DayChunk,
  DayDeleter,
  DeleteSideEffects,
  ReferenceCount,
  ReferencingKey,
} from "../../ports/day-deleter";
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

/**
 * Deletes days of a MemorySource's tables as the port promises: chunks are
 * planned in rising key (or filter value) order with the source's own
 * fingerprint, and a chunk is deleted only when its rows are still exactly
 * the planned ones, the table gained no foreign key or trigger, and nothing
 * references its rows; otherwise nothing is deleted. Leaves out what only a
 * database has: locks, transactions and ON DELETE rules (a reference always
 * refuses), and references between rows of the table itself.
 */
export function createMemoryDayDeleter(source: MemorySource): MemoryDayDeleter {
  const effects = new Map<string, DeleteSideEffects>();
  const references = new Map<string, readonly string[]>();

  /** The rows of the target's day, each with what it is ordered and cut by, in that order. */
  function dayRows(target: ChunkTarget): { row: Row; at: string; key: bigint }[] {
    const { scope, by } = target;
    const schema = source.schemaOf(scope.table);
    const filter = columnIndex(schema, scope.column);
    const key = by.kind === "key" ? columnIndex(schema, by.column) : -1;
    return source
      .rows(scope.table)
      .filter((row) => dayOfValue(row[filter]) === scope.day)
      .map((row) => ({ row, at: String(row[filter]), key: key < 0 ? 0n : keyOf(row, key) }))
      .sort((a, b) => (by.kind === "key" ? compare(a.key, b.key) : compare(a.at, b.at)));
  }

  function inChunk(target: ChunkTarget, chunk: DayChunk) {
    return ({ at, key }: { at: string; key: bigint }) =>
      target.by.kind === "key"
        ? key >= BigInt(chunk.first) && key <= BigInt(chunk.last)
        : at >= chunk.first && at <= chunk.last;
  }

  function referencing(target: ChunkTarget, keys: readonly ReferencingKey[], rows: readonly Row[]) {
    const schema = source.schemaOf(target.scope.table);
    return keys.map((key): ReferenceCount => {
      const parent = columnIndex(schema, key.parentColumns[0] ?? "");
      const values = new Set(rows.map((row) => String(row[parent])));
      return { key, rows: (references.get(key.constraint) ?? []).filter((v) => values.has(v)).length };
    });
  }

  return {
    setSideEffects: (table, set) => effects.set(table, set),
    setReferences: (constraint, referenced) => references.set(constraint, [...referenced]),

    async sideEffects(table) {
      return effects.get(table) ?? NONE;
    },

    async countReferences(target, keys) {
      return referencing(
        target,
        keys,
        dayRows(target).map(({ row }) => row),
      );
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

    async deleteChunk(target, chunk, sideEffects, options = {}) {
      const { scope } = target;
      const day = dayRows(target);
      const found = day.filter(inChunk(target, chunk));
      const figures = chunkOf(target, found);
      if (options.wholeDay && day.length !== found.length) {
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
      const rows = found.map(({ row }) => row);
      const counts = referencing(target, sideEffects.referencingKeys, rows).filter((count) => count.rows > 0);
      if (counts.length > 0) return { kind: "referenced", references: counts };
      const gone = new Set(found.map(({ row }) => JSON.stringify(row)));
      const deleted = source.deleteRows(scope.table, (row) => gone.has(JSON.stringify(row)));
      return { kind: "deleted", rows: deleted };
    },

    describeDelete(scope, range) {
      const keyed = range ? ` AND \`${range.column}\` BETWEEN ${range.min} AND ${range.max}` : "";
      return (
        `DELETE FROM \`${scope.table}\` WHERE \`${scope.column}\` >= '${startOfDay(scope.day)}' ` +
        `AND \`${scope.column}\` < '${startOfDay(addDays(scope.day, 1))}'${keyed}`
      );
    },
  };
}

function chunkOf(target: ChunkTarget, group: readonly { row: Row; at: string; key: bigint }[]) {
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
