import type { ChunkTarget, DayChunk, DeleteSideEffects } from "../../ports/day-deleter";
import type { CopiedDayRecord } from "../../ports/migration-ledger";
import { addDays, startOfDay } from "../days/calendar-day";
import { type DayFigures, sameFigures } from "../types/day-figures";
import { parseDestination } from "../types/destination";
import type { WarehouseDay } from "../types/warehouse-day";
import type { CleanupDeps } from "./cleanup-deps";
import type { DeleteRun } from "./delete-day";
import { chunkRefusal } from "./refusals";
import type { Throttle } from "./throttle";

export interface WholeDayInput {
  readonly target: ChunkTarget;
  /** The day's copy record: fingerprinted, made by the task's column, with key figures for a keyed table. */
  readonly record: CopiedDayRecord;
  readonly sideEffects: DeleteSideEffects;
  readonly throttle: Throttle;
  /** Renews the task's lease right before the delete. */
  readonly beforeDelete: () => Promise<void>;
  /** The warehouse's figures of the day, when the task asked for them early (see warehouseFiguresEarly). */
  readonly warehouseFigures?: Promise<EarlyFigures | undefined>;
}

/** The warehouse's figures of a day, and the key column they were counted for. */
export interface EarlyFigures {
  readonly keyColumn: string | undefined;
  readonly figures: DayFigures;
}

/**
 * Asks the warehouse for the day's figures as soon as the copy record is
 * known, while the task still reads its state and the table: for a day that
 * will be cleaned whole (its copy fits in one chunk), by the key the copy
 * counted. Undefined for any other day. Only a read: a day that turns out not
 * to be cleaned whole never uses it.
 */
export function warehouseFiguresEarly(
  deps: CleanupDeps,
  column: string,
  record: CopiedDayRecord | undefined,
): Promise<EarlyFigures | undefined> {
  if (!record || !copyFitsOneChunk(record, column, deps.settings.chunkRows))
    return Promise.resolve(undefined);
  const keyColumn = record.figures.key?.column;
  const at = copiedDay(deps, record, column);
  return deps
    .warehouse()
    .then(async (warehouse) => ({ keyColumn, figures: await warehouse.dayFigures(at, keyColumn) }));
}

/** What a whole-day clean did; `verify` hands the day to the full verification (a re-copy may answer it). */
export type WholeDayOutcome =
  | { readonly kind: "cleaned"; readonly run: DeleteRun }
  | { readonly kind: "already-clean" }
  | { readonly kind: "verify" };

/**
 * Cleans a day whose copy fits in one chunk in one transaction, verified
 * under the lock its delete holds: the day's rows (within the key range the
 * copy recorded) are locked and must equal the copy record in count, key sum
 * and content fingerprint, the day may hold no other row, nothing may
 * reference them, and only then are they deleted. That is the full verification and the chunk's check at once, so
 * the day is hashed once instead of twice. Nothing is recorded before the
 * commit: a crash after it finds the day already clean on the retry.
 *
 * A day whose warehouse copy no longer matches its record, or whose rows
 * changed, goes to the full verification (`verify`), which refuses it with
 * every figure named, or copies it again when the task may.
 */
export async function cleanWholeDay(deps: CleanupDeps, input: WholeDayInput): Promise<WholeDayOutcome> {
  const { target, record } = input;
  const { scope } = target;
  const keyColumn = target.by.kind === "key" ? target.by.column : undefined;
  const at = copiedDay(deps, record, scope.column);
  const early = await input.warehouseFigures?.catch(() => undefined);
  const warehouse =
    early && early.keyColumn === keyColumn
      ? early.figures
      : await (await deps.warehouse()).dayFigures(at, keyColumn);
  if (!sameFigures(warehouse, record.figures)) return { kind: "verify" };
  const chunk = chunkOfRecord(target, record);
  const { waitedMs } = await input.throttle.beforeChunk(true);
  await input.beforeDelete();
  const deleteStarted = performance.now();
  const newestFirst = input.sideEffects.referencingKeys.some((key) => key.selfReferencing);
  const outcome = await deps.deleter.deleteChunk(target, chunk, input.sideEffects, {
    newestFirst,
    wholeDay: true,
  });
  const chunkMs = Math.round((performance.now() - deleteStarted) * 10) / 10;
  input.throttle.afterChunk(chunkMs);
  // The full verification names every figure of a changed day, and copies it again when asked.
  if (outcome.kind === "changed") return { kind: "verify" };
  const refusal = chunkRefusal(outcome, `${scope.table} ${scope.day}`, "its rows are kept", () => "");
  if (refusal) throw refusal;
  const doneAt = deps.clock().toISOString();
  if (outcome.kind !== "deleted") {
    await deps.state.markDone(scope, {
      rowsDeleted: 0,
      chunksDone: 0,
      doneAt,
      figures: record.figures,
    });
    return { kind: "already-clean" };
  }
  await deps.state.markDone(scope, {
    rowsDeleted: outcome.rows,
    chunksDone: 1,
    doneAt,
    figures: record.figures,
  });
  return {
    kind: "cleaned",
    run: { rowsDeleted: outcome.rows, rowsFoundGone: 0, chunks: 1, longestChunkMs: chunkMs, waitedMs },
  };
}

/** Whether a day is cleaned in one locked transaction: its whole copy fits in one chunk and can be checked there. */
export function fitsOneChunk(
  record: CopiedDayRecord | undefined,
  target: ChunkTarget,
  chunkRows: number,
): boolean {
  if (!record || !copyFitsOneChunk(record, target.scope.column, chunkRows)) return false;
  const { rows, key } = record.figures;
  return target.by.kind !== "key" || (key?.column === target.by.column && key.count === rows);
}

/** A fingerprinted copy, made by `column`, of at least one row and at most `chunkRows`. */
function copyFitsOneChunk(record: CopiedDayRecord, column: string, chunkRows: number): boolean {
  const { rows, fingerprint } = record.figures;
  return record.filterColumn === column && fingerprint !== undefined && rows >= 1 && rows <= chunkRows;
}

/** The warehouse day the record's copy went to. */
function copiedDay(deps: CleanupDeps, record: CopiedDayRecord, column: string): WarehouseDay {
  const destination = parseDestination(record.destination, { field: "destination", ...deps.destinations });
  return { destination, filterColumn: column, day: record.day };
}

/**
 * The day's copy as one chunk: the key range the copy recorded (locked and
 * deleted through the primary key when dense), or the whole day for a table
 * without a key. The delete counts the whole day too (`wholeDay`), so a row
 * that arrived after the copy outside that range refuses the day as well.
 */
function chunkOfRecord(target: ChunkTarget, record: CopiedDayRecord): DayChunk {
  const { rows, fingerprint = "", key } = record.figures;
  if (target.by.kind === "key" && key) {
    return { first: key.min, last: key.max, rows, sum: key.sum, fingerprint };
  }
  const { day } = target.scope;
  // The chunk's range is also bounded by the day's own condition, which ends before the next midnight.
  return { first: startOfDay(day), last: startOfDay(addDays(day, 1)), rows, fingerprint };
}
