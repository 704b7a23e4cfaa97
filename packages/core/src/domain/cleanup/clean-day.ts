import { setTimeout as sleep } from "node:timers/promises";
import { TransientError, VerificationError } from "../../errors";
import type { DayCleanup } from "../../ports/cleanup-state";
import type { ChunkTarget, DayChunk, DayScope, DeleteSideEffects } from "../../ports/day-deleter";
import type { CleanupStart } from "../../ports/day-record";
import type { CopiedDayRecord } from "../../ports/migration-ledger";
import type { CalendarDay } from "../days/calendar-day";
import { describeExisting, requireDatetimeColumn } from "../migration/resolve-tables";
import { datasetOf, restoreCopyRecord, startedCleanup } from "../records/durable-day-record";
import type { CleanDayTask } from "../tasks/task-payload";
import type { DayFigures } from "../types/day-figures";
import type { TableSchema } from "../types/table-schema";
import { cleanWholeDay, fitsOneChunk } from "./clean-whole-day";
import type { CleanupDeps } from "./cleanup-deps";
import { requireChunkPlan, requireCopiedBy, requireStillClean, requireTriggersAllowed } from "./day-guards";
import { keepDayLease } from "./day-lease";
import { type ChunkPlan, deleteDay } from "./delete-day";
import { chunkByOf, figuresOfChunks, recordedKeyRange, requireChunksWithin } from "./plan-cleanup";
import { createThrottle } from "./throttle";
import { verifyDay } from "./verify-day";

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
    const report = await runDay(deps, schema, task, ledger, lease.check);
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

async function runDay(
  deps: CleanupDeps,
  schema: TableSchema,
  task: CleanDayTask,
  ledger: Promise<LedgerView>,
  renew: () => Promise<void>,
): Promise<Report> {
  const scope: DayScope = { table: task.table, column: task.filterColumn, day: task.day };
  const [existing, sideEffects] = await Promise.all([
    deps.state.read(scope),
    deps.deleter.sideEffects(scope.table),
  ]);
  const base = {
    table: scope.table,
    day: scope.day,
    chunks: 0,
    longestChunkMs: 0,
    waitedMs: 0,
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
    });
    if (whole.kind === "cleaned") return { ...base, ...whole.run, outcome: "cleaned", resumed: false };
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
    sideEffects,
    beforeDelete: renew,
  });
  await deps.state.markDone(scope, {
    rowsDeleted: run.rowsDeleted,
    chunksDone: plan.chunks.length,
    doneAt: deps.clock().toISOString(),
  });
  return { ...base, ...run, outcome: "cleaned", resumed };
}

/**
 * Verifies a day not yet deleting and records it `verified`, then
 * `deleting`. The source's figures are counted from the very chunks that will
 * be deleted (every row of the day, read in one pass while the warehouse is
 * counted), so what is deleted is what was checked. A day that changed since
 * its copy (or was copied without a fingerprint) is copied again first when
 * the message asked for it, then verified against its new record.
 */
async function verifyAndPlan(
  deps: CleanupDeps,
  target: ChunkTarget,
  { migrated, record }: LedgerView,
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
  const chunks = deps.deleter.planChunks(target, deps.settings.chunkRows);
  const verdict = await verifyDay(deps, {
    schema: target.schema,
    filterColumn: scope.column,
    day: scope.day,
    ...(record ? { record } : {}),
    source: chunks.then((c) => figuresOfChunks(scope, target.by, c)),
    referencingKeys: sideEffects.referencingKeys,
  });
  if (verdict.kind === "refused") {
    const started = record && (await startedCleanup(deps, scope.table, record));
    if (started) return resumeStartedCleanup(deps, scope, started);
    if (recopy && record && RECOPIED.has(verdict.category)) {
      const copied = await recopyChanged(deps, scope, record, verdict.reason);
      return verifyAndPlan(deps, target, { migrated, record: copied }, sideEffects, false);
    }
    throw new VerificationError(verdict.reason, { reason: verdict.category });
  }
  const now = deps.clock().toISOString();
  if (verdict.kind === "already-clean") {
    await deps.state.markDone(scope, {
      rowsDeleted: 0,
      chunksDone: 0,
      doneAt: now,
      figures: verdict.figures,
    });
    return "already-clean";
  }
  const plan = planOf(target, verdict.figures, await chunks, sideEffects);
  const verified = { figures: verdict.figures, plan, verifiedAt: now };
  await deps.state.markVerified(scope, verified);
  if (plan.chunks.length > 1 && record) {
    // A day deleted in several transactions is, part way, a day the copy record no longer
    // describes: the durable record keeps the plan, so that losing Redis (and this state with
    // it) does not leave the rest of the day refused for good. A day of one chunk needs none:
    // it is either whole or gone.
    const warehouse = await deps.warehouse();
    await warehouse.recordDay(datasetOf(deps.destinations, record.destination), {
      kind: "cleanup-started",
      table: scope.table,
      day: scope.day,
      cleanup: { ...verified, copiedAt: record.copiedAt },
    });
  }
  await deps.state.markDeleting(scope);
  return { ...verified, status: "deleting", chunksDone: 0, rowsDeleted: 0 };
}

/**
 * Takes up a cleanup that had begun deleting before its state was lost with
 * Redis: the plan comes from the warehouse's durable record. Chunks already
 * deleted are found gone; every other chunk is deleted only if, under its
 * locks, its rows are still exactly the planned ones.
 */
async function resumeStartedCleanup(
  deps: CleanupDeps,
  scope: DayScope,
  started: CleanupStart,
): Promise<DayCleanup> {
  deps.logger.warn("cleanup: resuming a day whose cleanup had started, from the warehouse's durable record", {
    ...scope,
    verifiedAt: started.verifiedAt,
  });
  const verified = { figures: started.figures, plan: started.plan, verifiedAt: started.verifiedAt };
  await deps.state.markVerified(scope, verified);
  await deps.state.markDeleting(scope);
  return { ...verified, status: "deleting", chunksDone: 0, rowsDeleted: 0 };
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

/** What the migration ledger says about the day: whether it is migrated, and its copy record. */
interface LedgerView {
  readonly migrated: boolean;
  readonly record: CopiedDayRecord | undefined;
}

/**
 * Reads the ledger; when Redis has no record of the day (it lost its data),
 * the warehouse's durable record in the default dataset may still have one,
 * and it is written back.
 */
async function readLedger(deps: CleanupDeps, scope: DayScope): Promise<LedgerView> {
  const [migrated, record] = await Promise.all([
    deps.ledger.isMigrated(scope.table, scope.day),
    deps.ledger.copiedDay(scope.table, scope.day),
  ]);
  if (migrated && record) return { migrated, record };
  const restored = await restoreCopyRecord(
    deps,
    datasetOf(deps.destinations, undefined),
    scope.table,
    scope.day,
  );
  return restored ? { migrated: true, record: restored } : { migrated, record };
}

/**
 * The verified chunks, checked against the key range recorded at copy time.
 * A table whose foreign key references itself is deleted newest rows first.
 */
function planOf(
  target: ChunkTarget,
  figures: DayFigures,
  chunks: readonly DayChunk[],
  sideEffects: DeleteSideEffects,
): ChunkPlan {
  const range = recordedKeyRange(target.schema, figures);
  if (range) requireChunksWithin(target.scope, range, chunks);
  const newestFirst = sideEffects.referencingKeys.some((key) => key.selfReferencing);
  return { kind: "chunks", by: target.by, chunks: newestFirst ? [...chunks].reverse() : chunks, newestFirst };
}
