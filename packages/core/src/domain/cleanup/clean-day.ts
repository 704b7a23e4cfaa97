import { TransientError, VerificationError } from "../../errors";
import type { CalendarDay } from "../../model/calendar-day";
import type { ChunkPlan, ChunkTarget } from "../../model/day-chunks";
import type { DayCleanup } from "../../model/day-cleanup";
import type { DayFigures } from "../../model/day-figures";
import type { DayScope } from "../../model/table-day";
import type { CleanDayTask } from "../../model/task";
import { warehouseHoldsCopy } from "../records/held-copy";
import { describeSourceTable, TASK_FIELDS } from "../types/source-table";
import { type CleanPartitionTask, cleanPartition, type PartitionCleanup } from "./clean-partition";
import { type CleanupDeps, markDayDone } from "./cleanup-deps";
import { claimDayLease } from "./day-lease";
import { type DeleteRun, deleteDay } from "./delete-day";
import { chunkByOf, copyFitsOneChunk, deletesNewestFirst, oneChunkPlan } from "./plan-cleanup";
import { requireChunkPlan, requireCopiedBy, requireStillClean, requireTriggersAllowed } from "./refusals";
import { taskThrottle, type WaitReason } from "./throttle";
import { type LedgerView, verifyAndPlan } from "./verify-and-plan";

/** What one cleanup task did for its day (its deletes' figures, DeleteRun, and the rest); also logged as one JSON line. */
export interface DayCleanupReport extends DeleteRun {
  readonly table: string;
  readonly day: CalendarDay;
  /** `cleaned` this run; `already-clean` (no source rows, full copy); `already-done` (a repeated task). */
  readonly outcome: "cleaned" | "already-clean" | "already-done";
  readonly durationMs: number;
  /** Time this attempt waited for replica lag or load. */
  readonly waitedMs: number;
  /** That time and the pauses between chunks, by what held the task (replicaLag, historyLength, pause...). */
  readonly waitedByReason: Readonly<Partial<Record<WaitReason, number>>>;
  /** True when this attempt continued a day an earlier attempt had started deleting. */
  readonly resumed: boolean;
  /** A partition task: what became of the partition (see cleanPartition). */
  readonly partition?: PartitionCleanup;
}

/** The figures of a task that deleted nothing itself and waited for nothing. */
const NOTHING_RUN = {
  rowsFoundGone: 0,
  chunks: 0,
  longestChunkMs: 0,
  waitedMs: 0,
  waitedByReason: {},
} as const;

/**
 * The cleanup task for one day. A state machine kept in CleanupState:
 * - fresh or `verified`: verify (source, warehouse and copy record agree on
 *   rows, keys and the content fingerprint; no other row references the
 *   day), plan the chunks, record `verified` with figures and plan, then
 *   `deleting`;
 * - `deleting`: delete the remaining chunks, never re-verifying against
 *   figures its own deletes changed; every chunk is bounded by the day's
 *   range and deleted only when, under its locks, its rows are exactly the
 *   planned ones and nothing outside it references them;
 * - `done`: nothing to do (a repeated task is a no-op).
 * A table with a DELETE trigger is refused unless the task allows triggers.
 * A day that fails verification is left untouched: VerificationError names
 * what disagrees. Progress survives a crash; the retry resumes. The day
 * stays in `mig_<table>`.
 */
export async function cleanDay(deps: CleanupDeps, task: CleanDayTask): Promise<DayCleanupReport> {
  if (task.partition !== undefined) return cleanPartitionTask(deps, { ...task, partition: task.partition });
  const started = performance.now();
  const scope: DayScope = { table: task.table, column: task.filterColumn, day: task.day };
  const lease = await claimDayLease(deps.state, scope, crypto.randomUUID());
  if (!lease) {
    throw new TransientError(`${scope.table} ${scope.day} is being cleaned by another task; retry later`);
  }
  try {
    const report = await runDay(deps, task, scope, lease.check);
    const durationMs = Math.round(performance.now() - started);
    deps.logger.info(report.outcome === "cleaned" ? "cleaned day" : `cleanup: day ${report.outcome}`, {
      ...report,
      durationMs,
    });
    return { ...report, durationMs };
  } catch (error) {
    if (error instanceof VerificationError) {
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

type Report = Omit<DayCleanupReport, "durationMs">;

/** A partition's task: the partition emptied at once, or its days cleaned one by one (its own day here). */
async function cleanPartitionTask(deps: CleanupDeps, task: CleanPartitionTask): Promise<DayCleanupReport> {
  const started = performance.now();
  const { own, ...partition } = await cleanPartition(deps, task, (dayTask) => cleanDay(deps, dayTask));
  const durationMs = Math.round(performance.now() - started);
  if (own) return { ...own, partition, durationMs };
  return {
    table: task.table,
    day: task.day,
    outcome: partition.outcome === "cleaned" ? "cleaned" : "already-done",
    rowsDeleted: partition.rowsDeleted,
    ...NOTHING_RUN,
    durationMs,
    resumed: false,
    partition,
  };
}

/** Verify → plan → delete the chunks; a day whose copy fits in one chunk is a plan of one chunk from its record. */
async function runDay(
  deps: CleanupDeps,
  task: CleanDayTask,
  scope: DayScope,
  renew: () => Promise<void>,
): Promise<Report> {
  // Asked at once, each a round trip. The warehouse's figures are asked as soon as the state and
  // the ledger answer, and only for a day not begun whose copy one chunk can vouch for: such a day
  // needs them before its delete, and no other day needs them here.
  const state = deps.state.read(scope);
  const ledger = readLedger(deps, scope);
  const [schema, existing, view, held, sideEffects] = await Promise.all([
    describeSourceTable(deps.source, task.table, task.filterColumn, TASK_FIELDS),
    state,
    ledger,
    Promise.all([state, ledger]).then(([existing, { record }]) =>
      existing?.status !== "done" &&
      existing?.status !== "deleting" &&
      record !== undefined &&
      copyFitsOneChunk(record, scope.column, deps.settings.chunkRows)
        ? warehouseHoldsCopy(deps, record)
        : false,
    ),
    deps.deleter.sideEffects(scope.table),
  ]);
  const base = { table: scope.table, day: scope.day, ...NOTHING_RUN };
  if (existing?.status === "done") {
    await requireStillClean(deps, schema, scope, existing);
    return { ...base, outcome: "already-done", rowsDeleted: existing.rowsDeleted, resumed: false };
  }
  requireTriggersAllowed(scope, sideEffects, task);
  const target: ChunkTarget = { scope, schema, by: chunkByOf(schema) };
  const throttle = taskThrottle(deps, { table: scope.table, day: scope.day }, renew);
  const deleteBy = (plan: ChunkPlan, progress: Pick<DayCleanup, "chunksDone" | "rowsDeleted">) =>
    deleteDay({
      deleter: deps.deleter,
      state: deps.state,
      throttle,
      target: { ...target, by: plan.by },
      progress,
      plan,
      chunkTargetMs: deps.settings.chunkTargetMs,
      sideEffects,
      beforeDelete: renew,
    });
  const cleaned = async (run: DeleteRun, chunksDone: number, resumed: boolean, figures?: DayFigures) => {
    await markDayDone(deps, scope, { rowsDeleted: run.rowsDeleted, chunksDone, figures });
    const { waitedMs, byReason } = throttle.totals();
    return { ...base, ...run, waitedMs, waitedByReason: byReason, outcome: "cleaned", resumed } as const;
  };

  if (existing?.status === "deleting") {
    requireCopiedBy(scope, view.record);
    const plan = requireChunkPlan(scope, existing.plan);
    return cleaned(await deleteBy(plan, existing), plan.chunks.length, true);
  }
  const oneChunk = view.migrated
    ? oneChunkPlan(target, view.record, deps.settings.chunkRows, deletesNewestFirst(sideEffects))
    : undefined;
  if (oneChunk && view.record && held) {
    // Nothing is recorded before the delete's commit: a crash after it finds the day gone on the retry.
    const { figures } = view.record;
    try {
      const run = await deleteBy(oneChunk, { chunksDone: 0, rowsDeleted: 0 });
      if (run.rowsDeleted === 0) {
        await markDayDone(deps, scope, { rowsDeleted: 0, chunksDone: 0, figures });
        return { ...base, outcome: "already-clean", rowsDeleted: 0, resumed: false };
      }
      return await cleaned(run, 1, false, figures);
    } catch (error) {
      // A changed day deleted nothing (its one chunk rolled back): the full verification names
      // every figure that differs, and copies the day again when the task may.
      if (!(error instanceof VerificationError && error.reason === "changed")) throw error;
    }
  }
  const cleanup = await verifyAndPlan(deps, target, view, sideEffects, task.recopyChangedDays === true);
  if (cleanup === "already-clean") {
    return { ...base, outcome: "already-clean", rowsDeleted: 0, resumed: false };
  }
  const plan = requireChunkPlan(scope, cleanup.plan);
  return cleaned(await deleteBy(plan, cleanup), plan.chunks.length, false);
}

/** Whether the day is migrated, and its copy record (the ledger recovers one Redis lost: withDurableRecord). */
async function readLedger(deps: CleanupDeps, scope: DayScope): Promise<LedgerView> {
  const [migrated, record] = await Promise.all([
    deps.ledger.isMigrated(scope.table, scope.day),
    deps.ledger.copiedDay(scope.table, scope.day),
  ]);
  return { migrated, record };
}
