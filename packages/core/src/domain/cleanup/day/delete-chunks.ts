import type { ChunkPlan, ChunkTarget } from "../../../model/day-chunks";
import type { DayCleanup } from "../../../model/day-cleanup";
import type { DayDeleter, DeleteSideEffects } from "../../../ports/day-deleter";
import type { RowsPace } from "../../pacing/rate-cap-pace";
import type { Throttle } from "../../pacing/throttle";
import { chunkRefusal, type Refusal } from "../refusal";
import { createChunkPacer, joinChunks } from "./chunk-pacer";

/** What one run over a day's chunks did. */
export interface DeleteRun {
  /** Rows of the day deleted by this run and every earlier one (the day's progress). */
  readonly dayRowsDeleted: number;
  /** Rows of chunks found already gone: deleted by an attempt that died before recording it, or by others. */
  readonly rowsFoundGone: number;
  /** Chunks this run executed. */
  readonly chunks: number;
  readonly longestChunkMs: number;
  /** Time this run waited for the table's rate cap. */
  readonly rateCapMs: number;
  /** True when the run stopped before the end of its plan because the window closes: the rest waits for the next. */
  readonly deferred: boolean;
}

/** The most rows one delete takes, however fast the server deletes them. */
export const MAX_DELETE_ROWS = 10_000;

export interface DeleteChunksInput {
  readonly deleter: DayDeleter;
  /** Records how far the day got, after each chunk but the last (the cleanup state's recordProgress). */
  readonly recordProgress: (progress: Pick<DayCleanup, "chunksDone" | "rowsDeleted">) => Promise<void>;
  readonly throttle: Throttle;
  /** The day, the table as described now, and what the plan's chunks are ranges of. */
  readonly target: ChunkTarget;
  /** How far earlier attempts got: chunks done and rows deleted (nothing, for a day not yet begun). */
  readonly progress: Pick<DayCleanup, "chunksDone" | "rowsDeleted">;
  readonly plan: ChunkPlan;
  /** Join planned chunks into deletes of about this many milliseconds (see createChunkPacer); 0 never joins. */
  readonly chunkTargetMs: number;
  /**
   * The foreign keys that reference the table and the triggers the task
   * allowed: each chunk makes sure, under its locks, that no referencing row
   * reaches its rows and that no key or trigger was added since.
   */
  readonly sideEffects: DeleteSideEffects;
  /** Runs right before every delete, after any pause: renews the lease; throws if another task holds it. */
  readonly beforeDelete: () => Promise<void>;
  /** Waits for a delete's rows under the table's rate cap (rateCapPace). */
  readonly pace: RowsPace;
  /** The most rows one delete takes (fewer under a rate cap, see cappedRows). */
  readonly maxRows: number;
  /** Epoch milliseconds: no delete starts that could not finish by then, by the pace measured so far. */
  readonly deadline?: number;
  /** Epoch milliseconds now, by the deps' clock. */
  readonly now: () => number;
}

/**
 * Deletes a verified day from where its stored progress stops. Never
 * re-verifies against figures its own deletes changed: it walks the stored
 * chunks, each deleted only when its rows are exactly the planned ones, to
 * the last column, and nothing outside the chunk references them. A chunk
 * that differs, or is referenced, stops the day for good with its Refusal:
 * nothing of it is deleted, and the chunks before it stay deleted (they were
 * verified).
 */
export async function deleteChunks(input: DeleteChunksInput): Promise<DeleteRun | Refusal> {
  const { deleter, throttle, target, plan } = input;
  const { scope } = target;
  const by = target.by.kind === "key" ? target.by.column : scope.column;
  let rowsDeleted = input.progress.rowsDeleted;
  const tally = { chunks: 0, rowsFoundGone: 0, longestChunkMs: 0, rateCapMs: 0, deferred: false };
  let deleteMs = 0;
  let rowsNow = 0;
  const unitRows = Math.max(1, Math.max(...plan.chunks.map((chunk) => chunk.rows)));
  // Newest-first plans (a self-referencing key) run their chunks in falling order: never joined.
  const pacer = createChunkPacer({
    targetMs: plan.newestFirst ? 0 : input.chunkTargetMs,
    max: Math.max(1, Math.floor(input.maxRows / unitRows)),
  });
  for (let index = input.progress.chunksDone; index < plan.chunks.length; ) {
    const taken = plan.chunks.slice(index, index + pacer.next(plan.chunks.length - index));
    if (taken.length === 0) break;
    const chunk = joinChunks(taken);
    await throttle.beforeChunk(tally.chunks === 0);
    tally.rateCapMs += await input.pace(chunk.rows);
    // A delete that could not finish before the window closes does not start; the next window resumes here.
    const expectedMs = rowsNow > 0 ? (deleteMs / rowsNow) * chunk.rows : 0;
    if (input.deadline !== undefined && input.now() + expectedMs >= input.deadline) {
      tally.deferred = true;
      break;
    }
    await input.beforeDelete();
    const started = performance.now();
    const outcome = await deleter.deleteChunk(target, chunk, input.sideEffects, {
      newestFirst: plan.newestFirst,
    });
    const ms = performance.now() - started;
    tally.chunks += 1;
    tally.longestChunkMs = Math.max(tally.longestChunkMs, ms);
    const where = `${scope.table} ${scope.day}: ${by} ${chunk.first}..${chunk.last}`;
    const before = `nothing in that range was deleted, ${rowsDeleted} rows of the day were deleted before it`;
    const refusal = chunkRefusal(outcome, where, before, chunk);
    if (refusal) return refusal;
    if (outcome.kind === "deleted") rowsDeleted += outcome.rows;
    else tally.rowsFoundGone += chunk.rows;
    deleteMs += ms;
    rowsNow += chunk.rows;
    pacer.observe(outcome.kind === "deleted" ? outcome.rows : 0, ms, unitRows);
    throttle.afterChunk(ms);
    index += taken.length;
    // After the last chunk the caller marks the day done; a crash before
    // that finds the chunk "absent" on retry, which is all this write would say.
    if (index >= plan.chunks.length) break;
    await input.recordProgress({ chunksDone: index, rowsDeleted });
  }
  return {
    ...tally,
    dayRowsDeleted: rowsDeleted,
    longestChunkMs: Math.round(tally.longestChunkMs * 10) / 10,
  };
}
