import type { ChunkPlan } from "../../../model/day-chunks";
import type { DayCleanup } from "../../../model/day-cleanup";
import type { DayFigures } from "../../../model/day-figures";
import { floorRefusal } from "../../retention/retention-floor";
import { copyRecordProblem } from "../judge-day";
import { isRefusal, type Refusal, refuse, triggerRefusal } from "../refusal";
import type { DayFacts } from "./day-facts";
import { copyPlan, deletesNewestFirst } from "./plan-chunks";

/** What a cleanup task does with its day, decided from its facts alone. */
export type DayDecision =
  /** Recorded done, and the source holds none of its rows: a repeated task. */
  | { readonly do: "nothing"; readonly rowsDeleted: number }
  /** The day keeps its rows. */
  | { readonly do: "refuse"; readonly refusal: Refusal }
  /** An earlier attempt began deleting: delete the rest of its stored plan, never re-verifying. */
  | { readonly do: "resume"; readonly plan: ChunkPlan; readonly progress: DayCleanup }
  /**
   * A copy whose record can plan the day (copyPlan), which the warehouse
   * still holds: each chunk's locking read is its verification and its delete
   * at once, and nothing reads the day before.
   */
  | { readonly do: "by-copy"; readonly plan: ChunkPlan; readonly figures: DayFigures }
  /** Verify the day against its copy and the warehouse, plan its chunks, then delete them. */
  | { readonly do: "verify" }
  /** The task's window has closed: nothing is deleted now, and the day keeps its state for the next window. */
  | { readonly do: "defer" };

/**
 * The cleanup task's one decision. A day is a state machine kept in the
 * cleanup state: fresh or `verified` (verify, plan, then delete), `deleting`
 * (resume), `done` (nothing, unless rows arrived since). A table with a
 * DELETE trigger is refused unless the task allows triggers. An account
 * short of what the cleanup relies on refuses every day before anything else.
 */
export function decideDay(facts: DayFacts): DayDecision {
  const { task, target, state, record, sideEffects, chunkRows } = facts;
  if (facts.access) return { do: "refuse", refusal: facts.access };
  const { scope } = target;
  const label = `${scope.table} ${scope.day}`;
  if (state?.status === "done") {
    const rows = facts.rowsNow ?? 0;
    if (rows === 0) return { do: "nothing", rowsDeleted: state.rowsDeleted };
    return refusing(
      "rows-after-cleanup",
      `${label}: recorded as cleaned${state.doneAt ? ` at ${state.doneAt}` : ""}, but the source ` +
        `holds ${rows} ${rows === 1 ? "row" : "rows"} of the day now: rows that arrived after its cleanup, or a ` +
        "cleanup record left from an earlier run. They are in no copy of this day and are kept",
    );
  }
  const floor = Math.max(facts.minRetentionDays, task.minRetentionDays ?? 0);
  const young = floorRefusal(scope, facts.today, floor);
  if (young) return { do: "refuse", refusal: young };
  if (task.windowEnd !== undefined && facts.now.getTime() >= Date.parse(task.windowEnd))
    return { do: "defer" };
  const triggers = triggerRefusal(scope.table, sideEffects, task.allowDeleteTriggers);
  if (triggers) return refusing("trigger", `${label}: ${triggers.reason}`);
  if (state?.status === "deleting") {
    // The day was verified by the column of its copy record; a task naming another would delete another day.
    const unvouched = copyRecordProblem(record, scope.column);
    if (unvouched !== undefined) {
      return refusing(
        "no-record",
        `${label}: resuming a cleanup by column "${scope.column}", but ${unvouched}; nothing more is deleted`,
      );
    }
    const plan = chunkPlanOf(facts, state);
    return isRefusal(plan) ? { do: "refuse", refusal: plan } : { do: "resume", plan, progress: state };
  }
  const plan = facts.migrated
    ? copyPlan(target, record, chunkRows, deletesNewestFirst(sideEffects))
    : undefined;
  if (plan && record && facts.held) return { do: "by-copy", plan, figures: record.figures };
  return { do: "verify" };
}

/** A plan stored by a version without fingerprints cannot prove what is left of its day. */
export function chunkPlanOf(
  { target: { scope } }: Pick<DayFacts, "target">,
  state: DayCleanup,
): ChunkPlan | Refusal {
  if (state.plan.kind === "chunks") return state.plan;
  return refuse(
    "not-fingerprinted",
    `${scope.table} ${scope.day}: its cleanup was planned by an earlier version without content fingerprints and ` +
      "stopped part way; what is left cannot be proven identical to the copy, so nothing more is deleted",
  );
}

function refusing(...[refusal, reason]: Parameters<typeof refuse>): DayDecision {
  return { do: "refuse", refusal: refuse(refusal, reason) };
}
