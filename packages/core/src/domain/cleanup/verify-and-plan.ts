import { VerificationError } from "../../errors";
import type { CopiedDayRecord } from "../../model/copied-day-record";
import type { ChunkTarget, DayChunk } from "../../model/day-chunks";
import type { DayCleanup } from "../../model/day-cleanup";
import type { DayScope } from "../../model/table-day";
import type { DeleteSideEffects } from "../../ports/day-deleter";
import { beginDeleting } from "../records/durable-cleanup-state";
import { type CleanupDeps, markDayDone } from "./cleanup-deps";
import { deletesNewestFirst, figuresOfChunks, verifiedPlan } from "./plan-cleanup";
import { type DayVerdict, type RefusedDay, refusalError } from "./refusals";
import { verifyDay } from "./verify-day";

/** What the migration ledger says about a day: whether it is migrated, and its copy record. */
export interface LedgerView {
  readonly migrated: boolean;
  readonly record: CopiedDayRecord | undefined;
}

// The cleanup task's first phase for a day its copy record cannot plan as one chunk, or that
// chunk found changed (see cleanDay): its verification and its plan, recorded before
// anything is deleted.

/**
 * Verifies a day not yet deleting and records it `verified`, then
 * `deleting`. The source's figures are counted from the very chunks that will
 * be deleted (every row of the day, read in one pass while the warehouse is
 * counted), so what is deleted is what was checked. A day that changed since
 * its copy (or was copied without a fingerprint) is copied again first when
 * the message asked for it, then verified against its new record.
 */
export async function verifyAndPlan(
  deps: CleanupDeps,
  target: ChunkTarget,
  { migrated, record: recorded }: LedgerView,
  sideEffects: DeleteSideEffects,
  recopy: boolean,
): Promise<DayCleanup | "already-clean"> {
  const { scope } = target;
  if (!migrated) {
    throw new VerificationError(
      `${scope.table} ${scope.day} is not in mig_${scope.table}; only migrated days are cleaned`,
      { reason: "no-record" },
    );
  }
  let record = recorded;
  let mayRecopy = recopy;
  for (;;) {
    const chunks = deps.deleter.planChunks(target, deps.settings.chunkRows);
    const verdict = await verifyDay(deps, {
      target,
      ...(record ? { record } : {}),
      source: chunks.then((c) => figuresOfChunks(scope, target.by, c)),
      referencingKeys: sideEffects.referencingKeys,
    });
    if (verdict.kind !== "refused")
      return storeVerified(deps, target, verdict, await chunks, sideEffects, record);
    // Refused because a cleanup of this copy had begun deleting before its state was lost with Redis?
    const resumed = record && (await deps.state.resumeLost(scope, record));
    if (resumed) return resumed;
    if (!(mayRecopy && record && RECOPIED.has(verdict.refusal))) throw refusalError(verdict);
    // Copied again once, then verified against the new record.
    record = await recopyChanged(deps, scope, record, verdict.reason);
    mayRecopy = false;
  }
}

/** Records a verified day `verified` with its figures and plan, then `deleting`; or done, when already clean. */
async function storeVerified(
  deps: CleanupDeps,
  target: ChunkTarget,
  verdict: Exclude<DayVerdict, RefusedDay>,
  chunks: readonly DayChunk[],
  sideEffects: DeleteSideEffects,
  record: CopiedDayRecord | undefined,
): Promise<DayCleanup | "already-clean"> {
  const { scope } = target;
  if (verdict.kind === "already-clean") {
    await markDayDone(deps, scope, { rowsDeleted: 0, chunksDone: 0, figures: verdict.figures });
    return "already-clean";
  }
  const plan = verifiedPlan(target, verdict.figures, chunks, deletesNewestFirst(sideEffects));
  const verified = { figures: verdict.figures, plan, verifiedAt: deps.clock().toISOString() };
  // Given the copy, a durable state keeps the plan of a day deleted in several transactions
  // beyond Redis (withDurableCleanup).
  return beginDeleting(deps.state, scope, record ? { ...verified, copy: record } : verified);
}

/**
 * Refusals that a new copy of the day answers: the source's rows changed, the
 * copy has no fingerprint, or the warehouse no longer matches its record (a
 * re-copy killed between the warehouse's commit and the new record). The
 * re-copy itself refuses to drop any row the warehouse holds.
 */
const RECOPIED = new Set(["changed", "not-fingerprinted", "warehouse"]);

async function recopyChanged(
  deps: CleanupDeps,
  scope: DayScope,
  record: CopiedDayRecord,
  why: string,
): Promise<CopiedDayRecord> {
  deps.logger.info("cleanup: copying a changed day again before cleaning it", { ...scope, why });
  const task = {
    kind: "copy",
    table: scope.table,
    destination: record.destination,
    filterColumn: scope.column,
    day: scope.day,
  } as const;
  return deps.recopy(task);
}
