import type { DayCleanup } from "../../../model/day-cleanup";
import type { DayFigures } from "../../../model/day-figures";
import { beginDeleting } from "../../records/durable-cleanup-state";
import type { CleanupDeps } from "../cleanup-deps";
import { isRefusal, type Refusal, refuse } from "../refusal";
import type { DayFacts } from "./day-facts";
import { deletesNewestFirst, figuresOfChunks, verifiedPlan } from "./plan-chunks";
import { verifyDay } from "./verify-day";

/** What verifying a day not yet deleting leads to: its state `deleting`, nothing left to delete, or a refusal. */
export type VerifiedOutcome =
  | { readonly kind: "deleting"; readonly state: DayCleanup }
  | { readonly kind: "already-clean"; readonly figures: DayFigures }
  | Refusal;

/** The facts verification starts from, and the message's `recopy_changed_days`: copy a changed day again once. */
export type VerifyInput = Pick<DayFacts, "target" | "migrated" | "record" | "sideEffects" | "chunkRows"> & {
  readonly recopy: boolean;
};

/**
 * The cleanup task's path for a day its copy record cannot plan as one chunk,
 * or whose one chunk found it changed: verifies it and records it `verified`,
 * then `deleting`, before anything is deleted. The source's figures are
 * counted from the very chunks that will be deleted (every row of the day,
 * read in one pass while the warehouse is counted), so what is deleted is
 * what was checked. A day that changed since its copy (or was copied without
 * a fingerprint) is copied again first when the message asked for it, then
 * verified against its new record.
 */
export async function verifyAndPlan(deps: CleanupDeps, input: VerifyInput): Promise<VerifiedOutcome> {
  const { target, sideEffects } = input;
  const { scope } = target;
  if (!input.migrated) {
    return refuse(
      "no-record",
      `${scope.table} ${scope.day} is not in mig_${scope.table}; only migrated days are cleaned`,
    );
  }
  let record = input.record;
  let mayRecopy = input.recopy;
  for (;;) {
    const chunks = deps.deleter.planChunks(target, input.chunkRows);
    const verdict = await verifyDay(deps, {
      target,
      ...(record ? { record } : {}),
      source: chunks.then((c) => figuresOfChunks(scope, target.by, c)),
      referencingKeys: sideEffects.referencingKeys,
    });
    if (verdict.kind === "already-clean") return { kind: "already-clean", figures: verdict.figures };
    if (verdict.kind === "ready") {
      const plan = verifiedPlan(target, verdict.figures, await chunks, deletesNewestFirst(sideEffects));
      if (isRefusal(plan)) return plan;
      const verified = { figures: verdict.figures, plan, verifiedAt: deps.clock().toISOString() };
      // Recorded `verified`, then `deleting`. Given the copy, a durable state keeps the plan of a day
      // deleted in several transactions beyond Redis (withDurableCleanup).
      const state = await beginDeleting(deps.state, scope, record ? { ...verified, copy: record } : verified);
      return { kind: "deleting", state };
    }
    // Refused because a cleanup of this copy had begun deleting before its state was lost with Redis?
    const resumed = record && (await deps.state.resumeLost(scope, record));
    if (resumed) return { kind: "deleting", state: resumed };
    if (!(mayRecopy && record && RECOPIED.has(verdict.refusal))) return verdict;
    // Copied again once, then verified against the new record.
    deps.logger.info("cleanup: copying a changed day again before cleaning it", {
      ...scope,
      why: verdict.reason,
    });
    const { table, column: filterColumn, day } = scope;
    record = await deps.recopy({ kind: "copy", table, destination: record.destination, filterColumn, day });
    mayRecopy = false;
  }
}

/**
 * Refusals that a new copy of the day answers: the source's rows changed, the
 * copy has no fingerprint, or the warehouse no longer matches its record (a
 * re-copy killed between the warehouse's commit and the new record). The
 * re-copy itself refuses to drop any row the warehouse holds.
 */
const RECOPIED = new Set(["changed", "not-fingerprinted", "warehouse"]);
