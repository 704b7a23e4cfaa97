import { setTimeout as sleepFor } from "node:timers/promises";
import { RefusalError, TransientError } from "../../../errors";
import type { CalendarDay } from "../../../model/calendar-day";
import type { ChunkPlan } from "../../../model/day-chunks";
import type { DayFigures } from "../../../model/day-figures";
import type { CleanDayTask } from "../../../model/task";
import { cappedRows, rateCapPace } from "../../pacing/rate-cap-pace";
import { type Throttle, taskThrottle, type WaitReason } from "../../pacing/throttle";
import { beginDeleting } from "../../records/durable-cleanup-state";
import { type CleanupDeps, markDayDone } from "../cleanup-deps";
import { claimDayLease } from "../day-lease";
import { isRefusal, type Refusal, refusalError } from "../refusal";
import { type DayFacts, readDayFacts } from "./day-facts";
import { chunkPlanOf, type DayDecision, decideDay } from "./decide-day";
import { type DeleteChunksInput, type DeleteRun, deleteChunks, MAX_DELETE_ROWS } from "./delete-chunks";
import { verifyAndPlan } from "./verify-and-plan";

/** What one cleanup task did for its day; also logged as one JSON line. */
export interface DayCleanupReport extends Omit<DeleteRun, "dayRowsDeleted" | "rateCapMs" | "deferred"> {
  readonly table: string;
  readonly day: CalendarDay;
  /**
   * `cleaned` this run; `already-clean` (no source rows, full copy); `already-done` (a repeated task);
   * `deferred`: its window closed, so it stopped where it was (part of the day may be deleted) and the
   * next window's run takes the day up there.
   */
  readonly outcome: "cleaned" | "already-clean" | "already-done" | "deferred";
  /** Rows of the day deleted, by this attempt and any earlier one it resumed. */
  readonly rowsDeleted: number;
  readonly durationMs: number;
  /** Time this attempt waited for replica lag or load. */
  readonly waitedMs: number;
  /** That time and the pauses between chunks, by what held the task (replicaLag, historyLength, pause...). */
  readonly waitedByReason: Readonly<Partial<Record<WaitReason, number>>>;
  /** True when this attempt continued a day an earlier attempt had started deleting. */
  readonly resumed: boolean;
}

/** What carrying a decision out came to, before it is recorded. */
interface DayDone {
  readonly outcome: DayCleanupReport["outcome"];
  /** The deletes of this attempt; none for a day that needed none. */
  readonly run?: DeleteRun;
  /** The day's rows deleted, when no run of this attempt counts them (a repeated task). */
  readonly rowsDeleted?: number;
  readonly chunksDone: number;
  readonly resumed: boolean;
  /** What the day held, for a day with no `verified` state of its own (its copy record's figures). */
  readonly figures?: DayFigures;
}

/**
 * The cleanup task for one day, in one line of steps: lease the day, read
 * its facts, decide (decideDay), carry the decision out chunk by chunk, and
 * record it. Every chunk is bounded by the day's range and deleted only when,
 * under its locks, its rows are exactly the verified ones and nothing outside
 * it references them. A refused day is left untouched, and the task ends with
 * a RefusalError naming what disagrees. Progress survives a crash; the retry
 * resumes. The day stays in `mig_<table>`.
 */
export async function cleanDay(deps: CleanupDeps, task: CleanDayTask): Promise<DayCleanupReport> {
  const started = performance.now();
  const scope = { table: task.table, column: task.filterColumn, day: task.day };
  const lease = await claimDayLease(deps.state, scope, crypto.randomUUID());
  if (!lease)
    throw new TransientError(`${scope.table} ${scope.day} is being cleaned by another task; retry later`);
  try {
    const facts = await readDayFacts(deps, task);
    const throttle = taskThrottle(deps, { table: task.table, day: task.day }, lease.check);
    const done = await carryOut(deps, facts, decideDay(facts), throttle, lease.check);
    if (isRefusal(done)) throw refusalError(done);
    const report = await record(deps, facts, done, throttle, started);
    deps.logger.info(done.outcome === "cleaned" ? "cleaned day" : `cleanup: day ${done.outcome}`, {
      ...report,
    });
    return report;
  } catch (error) {
    // A refusal decided here, or one an adapter raised (a privilege a safety check needs, say).
    if (error instanceof RefusalError) {
      deps.logger.warn("cleanup refused day; its rows are kept", {
        ...scope,
        refusal: error.reason,
        reason: error.message,
      });
    }
    throw error;
  } finally {
    await lease.release();
  }
}

/** Does what the decision says; a refusal is an answer, not an exception. */
async function carryOut(
  deps: CleanupDeps,
  facts: DayFacts,
  decision: DayDecision,
  throttle: Throttle,
  renew: () => Promise<void>,
): Promise<DayDone | Refusal> {
  const { table, windowEnd } = facts.task;
  const sleep = deps.sleep ?? ((ms: number) => sleepFor(ms));
  const pace = rateCapPace(deps.rateCap, `cleanup:${table}`, facts.maxRowsPerSecond, sleep);
  const { scope } = facts.target;
  const recorded: DeleteChunksInput["recordProgress"] = (done) => deps.state.recordProgress(scope, done);
  const deleteBy = (plan: ChunkPlan, progress: DeleteChunksInput["progress"], recordProgress = recorded) =>
    deleteChunks({
      deleter: deps.deleter,
      recordProgress,
      throttle,
      target: { ...facts.target, by: plan.by },
      progress,
      plan,
      // Under a rate cap the pace, not the delete's length, sets the rate: planned chunks stay apart, so
      // the cap spreads short deletes evenly instead of longer ones with longer rests between.
      chunkTargetMs: facts.maxRowsPerSecond ? 0 : deps.settings.chunkTargetMs,
      sideEffects: facts.sideEffects,
      beforeDelete: renew,
      pace,
      maxRows: cappedRows(MAX_DELETE_ROWS, facts.maxRowsPerSecond),
      ...(windowEnd ? { deadline: Date.parse(windowEnd) } : {}),
      now: () => deps.clock().getTime(),
    });
  switch (decision.do) {
    case "nothing":
      return { outcome: "already-done", rowsDeleted: decision.rowsDeleted, chunksDone: 0, resumed: false };
    case "refuse":
      return decision.refusal;
    case "defer":
      return { outcome: "deferred", chunksDone: 0, resumed: false };
    case "resume": {
      const run = await deleteBy(decision.plan, decision.progress);
      return isRefusal(run) ? run : cleaned(run, decision.plan, true);
    }
    case "by-copy": {
      const { plan, figures } = decision;
      // Recorded `deleting` by this plan once its first chunk committed (a retry finds that chunk gone).
      let begun = false;
      const run = await deleteBy(plan, { chunksDone: 0, rowsDeleted: 0 }, async (done) => {
        const verifiedAt = deps.clock().toISOString();
        if (!begun) await beginDeleting(deps.state, scope, { figures, plan, verifiedAt });
        begun = true;
        await recorded(done);
      });
      if (!isRefusal(run) && run.dayRowsDeleted === 0 && !run.deferred) return clean(figures);
      if (!isRefusal(run)) return { ...cleaned(run, plan, false), figures };
      // A changed day that deleted nothing (its first chunk rolled back): the full verification names
      // every figure that differs, and copies the day again when the task may.
      if (run.refusal !== "changed" || begun) return run;
    }
  }
  const verified = await verifyAndPlan(deps, { ...facts, recopy: facts.task.recopyChangedDays === true });
  // A window that closed while the day was verified: it stays verified and deleting, for the next window.
  if (isRefusal(verified)) return verified;
  if (verified.kind === "already-clean") return clean(verified.figures);
  const plan = chunkPlanOf(facts, verified.state);
  if (isRefusal(plan)) return plan;
  const run = await deleteBy(plan, verified.state);
  return isRefusal(run) ? run : cleaned(run, plan, false);
}

const cleaned = (run: DeleteRun, plan: ChunkPlan, resumed: boolean): DayDone => ({
  outcome: run.deferred ? "deferred" : "cleaned",
  run,
  chunksDone: plan.chunks.length,
  resumed,
});

/** The source holds none of the day's rows and the warehouse holds its copy: done with nothing to delete. */
const clean = (figures: DayFigures): DayDone => ({
  outcome: "already-clean",
  chunksDone: 0,
  resumed: false,
  figures,
});

/** Records the day done (unless a repeated task found it so) and makes the task's report. */
async function record(
  deps: CleanupDeps,
  facts: DayFacts,
  done: DayDone,
  throttle: Throttle,
  started: number,
): Promise<DayCleanupReport> {
  const nothing = { ...NOTHING_RUN, dayRowsDeleted: done.rowsDeleted ?? 0, rateCapMs: 0, deferred: false };
  const { dayRowsDeleted, rateCapMs, deferred: _stopped, ...run } = done.run ?? nothing;
  if (done.outcome !== "already-done" && done.outcome !== "deferred") {
    const { chunksDone, figures } = done;
    await markDayDone(deps, facts.target.scope, { rowsDeleted: dayRowsDeleted, chunksDone, figures });
  }
  const { waitedMs, byReason } = done.run ? throttle.totals() : { waitedMs: 0, byReason: {} };
  return {
    table: facts.task.table,
    day: facts.task.day,
    outcome: done.outcome,
    ...run,
    rowsDeleted: dayRowsDeleted,
    waitedMs,
    waitedByReason: rateCapMs > 0 ? { ...byReason, rateCap: rateCapMs } : byReason,
    resumed: done.resumed,
    durationMs: Math.round(performance.now() - started),
  };
}

/** The figures of a task that deleted nothing itself and waited for nothing. */
export const NOTHING_RUN = {
  rowsFoundGone: 0,
  chunks: 0,
  longestChunkMs: 0,
  waitedMs: 0,
  waitedByReason: {},
} as const;
