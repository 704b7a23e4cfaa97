import { setTimeout as sleep } from "node:timers/promises";
import { TransientError, VerificationError } from "../../errors";
import type { DayCleanup } from "../../ports/cleanup-state";
import type { ChunkTarget, DayScope } from "../../ports/day-deleter";
import type { CalendarDay } from "../days/calendar-day";
import { describeExisting, requireDatetimeColumn } from "../migration/resolve-tables";
import { createNicePace } from "../pacing/nice-pace";
import type { CleanDayTask } from "../tasks/task-payload";
import type { TableSchema } from "../types/table-schema";
import { cleanWholeDay, type EarlyFigures, fitsOneChunk, warehouseFiguresEarly } from "./clean-whole-day";
import type { CleanupDeps } from "./cleanup-deps";
import { keepDayLease } from "./day-lease";
import { deleteDay } from "./delete-day";
import { chunkByOf } from "./plan-cleanup";
import { requireChunkPlan, requireCopiedBy, requireStillClean, requireTriggersAllowed } from "./refusals";
import { createThrottle, type WaitReason } from "./throttle";
import { type LedgerView, readLedger, verifyAndPlan } from "./verify-and-plan";

/**
 * How long a task holds a day before another may take it over. A live task
 * renews it in the background every third of this (see keepDayLease) and
 * right before every delete. After a crash the day's next attempt must wait
 * this out: at 15 s it is free about when the local worker hands the
 * interrupted task out again (its job lock is 10 s, checked every 5 s, see
 * local-worker.ts), where 60 s cost several retries, each an attempt.
 */
export const LEASE_TTL_MS = 15_000;

/** What one cleanup task did for its day; also logged as one JSON line. */
export interface DayCleanupReport {
  readonly table: string;
  readonly day: CalendarDay;
  /** `cleaned` this run; `already-clean` (no source rows, full copy); `already-done` (a repeated task). */
  readonly outcome: "cleaned" | "already-clean" | "already-done";
  /** Rows of the day deleted, over every attempt. */
  readonly rowsDeleted: number;
  /** Rows of planned chunks this attempt found already gone (an attempt died after its commit, or someone else deleted them). */
  readonly rowsFoundGone: number;
  /** Chunks this attempt ran. */
  readonly chunks: number;
  readonly durationMs: number;
  readonly longestChunkMs: number;
  /** Time this attempt waited for replica lag or load. */
  readonly waitedMs: number;
  /** That time and the pauses between chunks, by what held the task (replicaLag, historyLength, pause...). */
  readonly waitedByReason: Readonly<Partial<Record<WaitReason, number>>>;
  /** True when this attempt continued a day an earlier attempt had started deleting. */
  readonly resumed: boolean;
}

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
  const started = performance.now();
  const scope: DayScope = { table: task.table, column: task.filterColumn, day: task.day };
  const holder = crypto.randomUUID();
  // The lease, the table's description and the ledger are asked for at once
  // (each a round trip); a task for a table that is gone gives its lease back.
  const claimed = deps.state.claim(scope, holder, LEASE_TTL_MS);
  const ledger = readLedger(deps, scope);
  ledger.catch(() => {
    // Awaited (and its failure reported) only when the day needs verifying.
  });
  // Asked after the claim, on the same connection: it reads the state as the claim left it.
  const existing = deps.state.read(scope);
  existing.catch(() => {
    // Awaited (and its failure reported) once the day is claimed.
  });
  const warehouseFigures = ledger.then((view) => warehouseFiguresEarly(deps, scope.column, view.record));
  warehouseFigures.catch(() => {
    // A failure here is met again, and reported, when the figures are asked for in turn.
  });
  let schema: TableSchema;
  try {
    schema = await describeExisting(deps.source, task.table, "table");
    requireDatetimeColumn(schema, task.filterColumn, "filterColumn");
  } catch (error) {
    if (await claimed.catch(() => false)) await deps.state.release(scope, holder);
    throw error;
  }
  if (!(await claimed)) {
    throw new TransientError(`${scope.table} ${scope.day} is being cleaned by another task; retry later`);
  }
  const lease = keepDayLease(deps.state, scope, holder, LEASE_TTL_MS);
  try {
    const report = await runDay(deps, schema, task, { ledger, existing, warehouseFigures }, lease.check);
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

/** What the task asked for before its claim came back. */
interface EarlyReads {
  readonly ledger: Promise<LedgerView>;
  readonly existing: Promise<DayCleanup | undefined>;
  readonly warehouseFigures: Promise<EarlyFigures | undefined>;
}

async function runDay(
  deps: CleanupDeps,
  schema: TableSchema,
  task: CleanDayTask,
  { ledger, ...early }: EarlyReads,
  renew: () => Promise<void>,
): Promise<Report> {
  const scope: DayScope = { table: task.table, column: task.filterColumn, day: task.day };
  const [existing, sideEffects] = await Promise.all([early.existing, deps.deleter.sideEffects(scope.table)]);
  const base = {
    table: scope.table,
    day: scope.day,
    chunks: 0,
    longestChunkMs: 0,
    waitedMs: 0,
    waitedByReason: {},
    rowsFoundGone: 0,
  };
  if (existing?.status === "done") {
    await requireStillClean(deps, schema, scope, existing);
    return { ...base, outcome: "already-done", rowsDeleted: existing.rowsDeleted, resumed: false };
  }
  requireTriggersAllowed(scope, sideEffects, task);
  const resumed = existing?.status === "deleting";
  if (resumed) requireCopiedBy(scope, (await ledger).record);
  const target: ChunkTarget = { scope, schema, by: chunkByOf(schema) };
  const recopy = task.recopyChangedDays === true;
  const throttle = createThrottle({
    probe: deps.loadProbe,
    settings: deps.settings,
    sleep: deps.sleep ?? ((ms: number) => sleep(ms)),
    pace:
      deps.pace ??
      createNicePace({ ratio: deps.settings.niceRatio, sleep: deps.sleep ?? ((ms) => sleep(ms)) }),
    logger: deps.logger,
    context: { table: scope.table, day: scope.day },
    onWait: renew,
  });
  const view = await ledger;
  if (
    !resumed &&
    view.migrated &&
    view.record &&
    fitsOneChunk(view.record, target, deps.settings.chunkRows)
  ) {
    const whole = await cleanWholeDay(deps, {
      target,
      record: view.record,
      sideEffects,
      throttle,
      beforeDelete: renew,
      warehouseFigures: early.warehouseFigures,
    });
    if (whole.kind === "cleaned") {
      const waitedByReason = throttle.totals().byReason;
      return { ...base, ...whole.run, waitedByReason, outcome: "cleaned", resumed: false };
    }
    if (whole.kind === "already-clean") {
      return { ...base, outcome: "already-clean", rowsDeleted: 0, resumed: false };
    }
  }
  const cleanup = resumed ? existing : await verifyAndPlan(deps, target, view, sideEffects, recopy);
  if (cleanup === "already-clean") {
    return { ...base, outcome: "already-clean", rowsDeleted: 0, resumed: false };
  }
  const plan = requireChunkPlan(scope, cleanup.plan);
  const run = await deleteDay({
    deleter: deps.deleter,
    state: deps.state,
    throttle,
    target: { ...target, by: plan.by },
    cleanup,
    plan,
    chunkTargetMs: deps.settings.chunkTargetMs,
    sideEffects,
    beforeDelete: renew,
  });
  await deps.state.markDone(scope, {
    rowsDeleted: run.rowsDeleted,
    chunksDone: plan.chunks.length,
    doneAt: deps.clock().toISOString(),
  });
  return { ...base, ...run, waitedByReason: throttle.totals().byReason, outcome: "cleaned", resumed };
}
