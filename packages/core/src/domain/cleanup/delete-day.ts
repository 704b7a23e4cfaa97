import { VerificationError } from "../../errors";
import type { CleanupPlan, CleanupState, DayCleanup } from "../../ports/cleanup-state";
import type { DayDeleter, DayScope } from "../../ports/day-deleter";
import type { Logger } from "../../ports/logger";
import type { Throttle } from "./throttle";

/** What one run over a day's chunks did. */
export interface DeleteRun {
  /** Rows of the day deleted by every run so far. */
  readonly rowsDeleted: number;
  /**
   * Rows of chunks this run found already gone: deleted by an attempt that
   * died before recording it, or by someone else.
   */
  readonly rowsFoundGone: number;
  /** Chunks this run executed. */
  readonly chunks: number;
  readonly longestChunkMs: number;
  readonly waitedMs: number;
}

export interface DeleteDayInput {
  readonly deleter: DayDeleter;
  readonly state: CleanupState;
  readonly throttle: Throttle;
  readonly scope: DayScope;
  /** The day's state, `deleting`, as stored. */
  readonly cleanup: DayCleanup;
  /** True when an earlier task left the day `deleting`: this run continues its deletes. */
  readonly resumed: boolean;
  readonly chunkRows: number;
  readonly logger: Logger;
  /**
   * Runs right before every delete, after any pause or throttling: renews the
   * task's lease, and throws when another task holds it now.
   */
  readonly beforeDelete: () => Promise<void>;
}

/**
 * Deletes a verified day from where its stored progress stops. Never
 * re-verifies against figures its own deletes changed: a keyed day walks its
 * stored chunks, each deleted only when its rows are exactly the planned ones;
 * a day without a key deletes at most the verified row count in total.
 */
export function deleteDay(input: DeleteDayInput): Promise<DeleteRun> {
  const plan = input.cleanup.plan;
  return plan.kind === "keys" ? deleteKeyChunks(input, plan) : deleteCounted(input, plan);
}

async function deleteKeyChunks(
  input: DeleteDayInput,
  plan: Extract<CleanupPlan, { kind: "keys" }>,
): Promise<DeleteRun> {
  const { deleter, state, throttle, scope } = input;
  let rowsDeleted = input.cleanup.rowsDeleted;
  const tally = newTally();
  for (let index = input.cleanup.chunksDone; index < plan.chunks.length; index++) {
    const chunk = plan.chunks[index];
    if (!chunk) break;
    tally.waitedMs += await throttle.beforeChunk(tally.chunks === 0);
    await input.beforeDelete();
    const outcome = await tally.time(() => deleter.deleteKeyChunk(scope, plan.key, chunk));
    if (outcome.kind === "changed") {
      throw new VerificationError(
        `${scope.table} ${scope.day}: rows changed since verification in ${plan.key.column} ${chunk.first}..${chunk.last}: ` +
          `planned ${chunk.rows} rows (key sum ${chunk.sum}), found ${outcome.rows} (key sum ${outcome.sum}); ` +
          `nothing in that range was deleted, ${rowsDeleted} rows of the day were deleted before it`,
      );
    }
    if (outcome.kind === "deleted") rowsDeleted += outcome.rows;
    else tally.rowsFoundGone += chunk.rows;
    // After the last chunk the caller marks the day done; a crash before
    // that finds the chunk "absent" on retry, which is all this write would say.
    if (index === plan.chunks.length - 1) break;
    await state.recordProgress(scope.table, scope.day, {
      chunksDone: index + 1,
      rowsDeleted,
      pendingRows: 0,
    });
  }
  return tally.result(rowsDeleted);
}

async function deleteCounted(
  input: DeleteDayInput,
  plan: Extract<CleanupPlan, { kind: "count" }>,
): Promise<DeleteRun> {
  const { deleter, state, throttle, scope } = input;
  let { rowsDeleted, chunksDone } = input.cleanup;
  rowsDeleted = await settlePending(input, plan, rowsDeleted);
  const tally = newTally();
  while (rowsDeleted < plan.rows) {
    const limit = Math.min(input.chunkRows, plan.rows - rowsDeleted);
    tally.waitedMs += await throttle.beforeChunk(tally.chunks === 0);
    await input.beforeDelete();
    // Written before the delete: if the task dies before the next write, the
    // retry knows a chunk of `limit` rows may have committed (settlePending).
    await state.recordProgress(scope.table, scope.day, { chunksDone, rowsDeleted, pendingRows: limit });
    const deleted = await tally.time(() => deleter.deleteRows(scope, limit));
    rowsDeleted += deleted;
    chunksDone += 1;
    await state.recordProgress(scope.table, scope.day, { chunksDone, rowsDeleted, pendingRows: 0 });
    // Fewer rows than verified are left (someone else deleted some): stop, never look for more.
    if (deleted < limit) {
      input.logger.warn("cleanup found fewer rows than verified; someone else deleted rows of the day", {
        ...scope,
        verifiedRows: plan.rows,
        rowsDeleted,
      });
      break;
    }
  }
  return tally.result(rowsDeleted);
}

/**
 * A retry of a day without a key: the day must hold exactly the verified rows
 * minus those deleted, or minus those plus the pending chunk if it committed
 * before the task died. Anything else means rows came or went under us, and
 * without a key they cannot be told apart, so the day stops.
 */
async function settlePending(
  input: DeleteDayInput,
  plan: Extract<CleanupPlan, { kind: "count" }>,
  rowsDeleted: number,
): Promise<number> {
  const { scope, cleanup } = input;
  // A fresh run was counted by its verification a moment ago; a resumed one counts
  // again, even when nothing was deleted yet: rows may have come since.
  if (!input.resumed) return rowsDeleted;
  const now = await input.deleter.countDay(scope);
  const expected = plan.rows - rowsDeleted;
  if (now === expected) return rowsDeleted;
  if (cleanup.pendingRows > 0 && now === expected - cleanup.pendingRows) {
    return rowsDeleted + cleanup.pendingRows;
  }
  throw new VerificationError(
    `${scope.table} ${scope.day}: resuming a cleanup without a key, the day holds ${now} rows; ` +
      `expected ${expected}${cleanup.pendingRows > 0 ? ` or ${expected - cleanup.pendingRows}` : ""} ` +
      `(${plan.rows} verified, ${rowsDeleted} deleted); rows were added or removed by someone else, so it stops here`,
  );
}

function newTally() {
  let longestChunkMs = 0;
  const tally = {
    chunks: 0,
    waitedMs: 0,
    rowsFoundGone: 0,
    async time<T>(run: () => Promise<T>): Promise<T> {
      const started = performance.now();
      try {
        return await run();
      } finally {
        tally.chunks += 1;
        longestChunkMs = Math.max(longestChunkMs, performance.now() - started);
      }
    },
    result(rowsDeleted: number): DeleteRun {
      return {
        rowsDeleted,
        rowsFoundGone: tally.rowsFoundGone,
        chunks: tally.chunks,
        longestChunkMs: Math.round(longestChunkMs * 10) / 10,
        waitedMs: tally.waitedMs,
      };
    },
  };
  return tally;
}
