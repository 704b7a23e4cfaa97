import { RefusalError } from "../../../errors";
import { addDays, startOfDay } from "../../../model/calendar-day";
import type { CopiedDayRecord } from "../../../model/copied-day-record";
import type {
  ChunkBy,
  ChunkPlan,
  ChunkTarget,
  DayChunk,
  KeyColumn,
  KeyRange,
} from "../../../model/day-chunks";
import type { DayFigures } from "../../../model/day-figures";
import type { DayScope } from "../../../model/table-day";
import { integerKeyColumn, type TableSchema } from "../../../model/table-schema";
import type { DeleteSideEffects } from "../../../ports/day-deleter";
import { type Refusal, refuse } from "../refusal";
import { joinChunks } from "./chunk-pacer";

/** The table's single integer primary key, as the deleter binds it; undefined without one. */
export function keyColumnOf(schema: TableSchema): KeyColumn | undefined {
  const key = integerKeyColumn(schema);
  if (!key) return undefined;
  const type = key.logicalType;
  return { column: key.name, unsigned: type.kind === "uint64" || (type.kind === "int32" && type.unsigned) };
}

/** How the day's rows are cut into chunks: by the single integer key, or by filter-column values without one. */
export function chunkByOf(schema: TableSchema): ChunkBy {
  const key = keyColumnOf(schema);
  return key ? { kind: "key", ...key } : { kind: "time" };
}

/**
 * The key range recorded when the day was copied, which bounds every delete
 * of the day. Undefined for tables without a single integer key.
 */
export function recordedKeyRange(schema: TableSchema, figures: DayFigures): KeyRange | undefined {
  const key = keyColumnOf(schema);
  if (!key) return undefined;
  if (figures.key?.column !== key.column || figures.key.count === 0) {
    // Verification refuses such a day first; a keyed table must never fall back to counting.
    throw new RefusalError(`${schema.name}: no recorded key range for "${key.column}"`);
  }
  return { ...key, min: figures.key.min, max: figures.key.max };
}

/**
 * The source's figures of a day, from its chunks (every row of the day, in
 * order): rows, content fingerprint and, for key chunks, key figures. What
 * verification compares with the warehouse and the record, so the chunks
 * that will be deleted are exactly the rows that were checked. Throws when
 * the chunks are not in strictly rising, disjoint order.
 */
export function figuresOfChunks(scope: DayScope, by: ChunkBy, chunks: readonly DayChunk[]): DayFigures {
  let rows = 0;
  let sum = 0n;
  let fingerprint = 0n;
  for (const [i, chunk] of chunks.entries()) {
    const ordered = rising(by, chunks[i - 1]?.last, chunk.first) && rising(by, chunk.first, chunk.last, true);
    if (chunk.rows < 1 || !ordered) {
      throw new Error(
        `${scope.table} ${scope.day}: chunk plan out of order at ${chunk.first}..${chunk.last}`,
      );
    }
    rows += chunk.rows;
    sum += BigInt(chunk.sum ?? 0);
    fingerprint += BigInt(chunk.fingerprint);
  }
  const figures = { rows, fingerprint: fingerprint.toString() };
  if (by.kind !== "key") return figures;
  return {
    ...figures,
    key: {
      column: by.column,
      count: rows,
      sum: sum.toString(),
      min: chunks[0]?.first ?? "",
      max: chunks.at(-1)?.last ?? "",
    },
  };
}

/** `a < b` (or `a <= b` with `orEqual`) for keys as integers, filter values as their fixed-width text; true without `a`. */
function rising(by: ChunkBy, a: string | undefined, b: string, orEqual = false): boolean {
  if (a === undefined) return true;
  if (by.kind === "key") return orEqual ? BigInt(a) <= BigInt(b) : BigInt(a) < BigInt(b);
  return orEqual ? a <= b : a < b;
}

/**
 * The plan of a day made from its copy record alone, without reading the day:
 * the key chunks the copy recorded, consecutive ones joined up to `chunkRows`,
 * or for a record without them that fits one chunk, that chunk (the recorded
 * key range, or without a key the span between the day's midnights). Each
 * chunk must hold exactly its recorded rows under its lock, and the chunk
 * deleted last stands for the whole day (`wholeDay`). Undefined when the
 * record cannot vouch for the day (copyVouches) or its chunks do not add up.
 */
export function copyPlan(
  target: ChunkTarget,
  record: CopiedDayRecord | undefined,
  chunkRows: number,
  newestFirst: boolean,
): ChunkPlan | undefined {
  const chunks = record && copyVouches(record, target.scope.column, chunkRows) && copyChunks(target, record);
  if (!chunks) return undefined;
  const joined: DayChunk[] = [];
  for (let at = 0, next = 0; at < chunks.length; at = next) {
    for (let rows = 0; next < chunks.length && rows + (chunks[next]?.rows ?? 0) <= chunkRows; next++)
      rows += chunks[next]?.rows ?? 0;
    joined.push(joinChunks(chunks.slice(at, next)));
  }
  if (newestFirst) joined.reverse();
  joined.push({ ...(joined.pop() as DayChunk), wholeDay: true });
  return { kind: "chunks", by: target.by, chunks: joined, newestFirst };
}

/** The copy's chunks, recorded or the one its figures make, when they add up to its rows and fingerprint. */
function copyChunks(target: ChunkTarget, record: CopiedDayRecord): readonly DayChunk[] | undefined {
  const { rows, fingerprint = "", key } = record.figures;
  if (target.by.kind === "time") {
    // Key chunks of a table that has lost its key since plan nothing. The range is also bounded by
    // the day's own condition, which ends before the next midnight.
    const { day } = target.scope;
    return record.chunks
      ? undefined
      : [{ first: startOfDay(day), last: startOfDay(addDays(day, 1)), rows, fingerprint }];
  }
  if (!(key?.column === target.by.column && key.count === rows)) return undefined;
  const chunks = record.chunks ?? [{ first: key.min, last: key.max, rows, sum: key.sum, fingerprint }];
  const sum = joinChunks(chunks);
  const whole = sum.rows === rows && sum.fingerprint === fingerprint;
  return whole && sum.first === key.min && sum.last === key.max ? chunks : undefined;
}

/** A fingerprinted copy of at least one row, made by `column`, whose chunks (or rows, without them) fit `chunkRows`. */
export function copyVouches(record: CopiedDayRecord, column: string, chunkRows: number): boolean {
  const { rows, fingerprint } = record.figures;
  const fits = record.chunks ? record.chunks.every((chunk) => chunk.rows <= chunkRows) : rows <= chunkRows;
  return record.filterColumn === column && fingerprint !== undefined && rows >= 1 && fits;
}

/**
 * The plan of a verified day: its chunks, checked against the key range
 * recorded at copy time. A table whose foreign key references itself is
 * deleted newest rows first.
 */
export function verifiedPlan(
  target: ChunkTarget,
  figures: DayFigures,
  chunks: readonly DayChunk[],
  newestFirst: boolean,
): ChunkPlan | Refusal {
  const range = recordedKeyRange(target.schema, figures);
  const outside = range && chunkOutside(target.scope, range, chunks);
  if (outside) return outside;
  return { kind: "chunks", by: target.by, chunks: newestFirst ? [...chunks].reverse() : chunks, newestFirst };
}

/**
 * Second line of defence after verification: every chunk lies inside the
 * key range recorded at copy time. Verification already made the day's min
 * and max equal to it; this keeps a plan that does not from ever reaching a
 * DELETE.
 */
export function chunkOutside(
  scope: DayScope,
  range: KeyRange,
  chunks: readonly DayChunk[],
): Refusal | undefined {
  const min = BigInt(range.min);
  const max = BigInt(range.max);
  const outside = chunks.find((chunk) => BigInt(chunk.first) < min || BigInt(chunk.last) > max);
  if (!outside) return undefined;
  return refuse(
    "changed",
    `${scope.table} ${scope.day}: chunk ${outside.first}..${outside.last} leaves the recorded key range ${range.min}..${range.max}`,
  );
}

/** A table whose foreign key references itself is deleted newest rows first, children before their parents. */
export function deletesNewestFirst(sideEffects: DeleteSideEffects): boolean {
  return sideEffects.referencingKeys.some((key) => key.selfReferencing);
}
