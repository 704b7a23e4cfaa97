import { TransientError, VerificationError } from "../../errors";
import type { CleanupPlan, DayCleanup } from "../../ports/cleanup-state";
import type { DayScope, KeyChunk } from "../../ports/day-deleter";
import type { CopiedDayRecord } from "../../ports/migration-ledger";
import type { CalendarDay } from "../days/calendar-day";
import { describeExisting, requireDatetimeColumn } from "../migration/resolve-tables";
import type { CleanDayTask } from "../tasks/task-payload";
import type { DayFigures } from "../types/day-figures";
import type { TableSchema } from "../types/table-schema";
import { type CleanupDeps, realSleep } from "./cleanup-deps";
import { type DeleteRun, deleteDay } from "./delete-day";
import { figuresOfChunks, keyColumnOf, recordedKeyRange, requireChunksWithin } from "./plan-cleanup";
import { createThrottle } from "./throttle";
import { verifyDay } from "./verify-day";

/** How long a task holds a day before another may take it over; renewed after every chunk and wait. */
export const LEASE_TTL_MS = 60_000;

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
 * - fresh or `verified`: verify (source, warehouse and copy record agree),
 *   plan the chunks, record `verified` with figures and plan, then `deleting`;
 * - `deleting`: delete the remaining chunks, never re-verifying against
 *   figures its own deletes changed, every chunk bounded by the day's range
 *   and the key range recorded at copy time;
 * - `done`: nothing to do (a repeated task is a no-op).
 * A day that fails verification is left untouched: VerificationError names
 * the figures that disagree. Progress survives a crash; the retry resumes.
 * The day stays in `mig_<table>`.
 */
export async function cleanDay(deps: CleanupDeps, task: CleanDayTask): Promise<DayCleanupReport> {
  const started = performance.now();
  const scope: DayScope = { table: task.table, column: task.filterColumn, day: task.day };
  const holder = crypto.randomUUID();
  // The lease, the table's description and the ledger are asked for at once
  // (each a round trip); a task for a table that is gone gives its lease back.
  const claimed = deps.state.claim(scope.table, scope.day, holder, LEASE_TTL_MS);
  const ledger = readLedger(deps, scope);
  ledger.catch(() => {
    // Awaited (and its failure reported) only when the day needs verifying.
  });
  let schema: TableSchema;
  try {
    schema = await describeExisting(deps.source, task.table, "table");
    requireDatetimeColumn(schema, task.filterColumn, "filterColumn");
  } catch (error) {
    if (await claimed.catch(() => false)) await deps.state.release(scope.table, scope.day, holder);
    throw error;
  }
  if (!(await claimed)) {
    throw new TransientError(`${scope.table} ${scope.day} is being cleaned by another task; retry later`);
  }
  const renew = async () => {
    if (!(await deps.state.renew(scope.table, scope.day, holder, LEASE_TTL_MS))) {
      throw new TransientError(`${scope.table} ${scope.day}: lost the cleanup lease; the retry resumes`);
    }
  };
  try {
    const report = await runDay(deps, schema, scope, ledger, renew);
    const durationMs = Math.round(performance.now() - started);
    deps.logger.info(report.outcome === "cleaned" ? "cleaned day" : `cleanup: day ${report.outcome}`, {
      ...report,
      durationMs,
    });
    return { ...report, durationMs };
  } catch (error) {
    if (error instanceof VerificationError) {
      deps.logger.warn("cleanup refused day; its rows are kept", { ...scope, reason: error.message });
    }
    throw error;
  } finally {
    await deps.state.release(scope.table, scope.day, holder).catch(() => {
      // The lease expires on its own; a failed release must not hide the task's outcome.
    });
  }
}

type Report = Omit<DayCleanupReport, "durationMs">;

async function runDay(
  deps: CleanupDeps,
  schema: TableSchema,
  scope: DayScope,
  ledger: Promise<LedgerView>,
  renew: () => Promise<void>,
): Promise<Report> {
  const existing = await deps.state.read(scope.table, scope.day);
  const base = {
    table: scope.table,
    day: scope.day,
    chunks: 0,
    longestChunkMs: 0,
    waitedMs: 0,
    rowsFoundGone: 0,
  };
  if (existing?.status === "done") {
    return { ...base, outcome: "already-done", rowsDeleted: existing.rowsDeleted, resumed: false };
  }
  const resumed = existing?.status === "deleting";
  if (resumed) requireCopiedBy(scope, await ledger);
  const cleanup = resumed ? existing : await verifyAndPlan(deps, schema, scope, await ledger);
  if (cleanup === "already-clean") {
    return { ...base, outcome: "already-clean", rowsDeleted: 0, resumed: false };
  }
  const run = await deleteDay({
    deleter: deps.deleter,
    state: deps.state,
    throttle: createThrottle({
      probe: deps.loadProbe,
      settings: deps.settings,
      sleep: deps.sleep ?? realSleep,
      logger: deps.logger,
      context: { table: scope.table, day: scope.day },
      onWait: renew,
    }),
    scope,
    cleanup,
    resumed,
    chunkRows: deps.settings.chunkRows,
    logger: deps.logger,
    beforeDelete: renew,
  });
  await finish(deps, scope, cleanup, run);
  return { ...base, ...run, outcome: "cleaned", resumed };
}

/**
 * Verifies a day not yet deleting and records it `verified`, then
 * `deleting`. For a keyed table the source's figures are counted from the
 * very chunks that will be deleted (every key of the day, read in one pass
 * while the warehouse is counted), so what is deleted is what was checked.
 */
async function verifyAndPlan(
  deps: CleanupDeps,
  schema: TableSchema,
  scope: DayScope,
  { migrated, record }: LedgerView,
): Promise<DayCleanup | "already-clean"> {
  if (!migrated) {
    throw new VerificationError(
      `${scope.table} ${scope.day} is not in mig_${scope.table}; only migrated days are cleaned`,
    );
  }
  const key = keyColumnOf(schema);
  const chunks = key ? deps.deleter.planKeyChunks(scope, key, deps.settings.chunkRows) : undefined;
  const source = key && chunks ? chunks.then((c) => figuresOfChunks(scope, key, c)) : undefined;
  const verdict = await verifyDay(deps, {
    schema,
    filterColumn: scope.column,
    day: scope.day,
    ...(record ? { record } : {}),
    ...(source ? { source } : {}),
  });
  if (verdict.kind === "refused") throw new VerificationError(verdict.reason);
  const now = deps.clock().toISOString();
  if (verdict.kind === "already-clean") {
    await deps.state.markDone(scope.table, scope.day, {
      rowsDeleted: 0,
      chunksDone: 0,
      doneAt: now,
      figures: verdict.figures,
    });
    return "already-clean";
  }
  const plan = await planOf(schema, scope, verdict.figures, chunks);
  const verified = { figures: verdict.figures, plan, verifiedAt: now };
  await deps.state.markVerified(scope.table, scope.day, verified);
  await deps.state.markDeleting(scope.table, scope.day);
  return { ...verified, status: "deleting", chunksDone: 0, rowsDeleted: 0, pendingRows: 0 };
}

/**
 * A resumed day was verified with the column of its copy record; a task naming
 * another column would delete another column's day.
 */
function requireCopiedBy(scope: DayScope, { record }: LedgerView): void {
  if (record?.filterColumn !== scope.column) {
    throw new VerificationError(
      `${scope.table} ${scope.day}: resuming a cleanup by column "${scope.column}", but the day was copied ` +
        (record ? `by column "${record.filterColumn}"` : "with no copy record left") +
        "; nothing more is deleted",
    );
  }
}

/** What the migration ledger says about the day: whether it is migrated, and its copy record. */
interface LedgerView {
  readonly migrated: boolean;
  readonly record: CopiedDayRecord | undefined;
}

async function readLedger(deps: CleanupDeps, scope: DayScope): Promise<LedgerView> {
  const [migrated, record] = await Promise.all([
    deps.ledger.isMigrated(scope.table, scope.day),
    deps.ledger.copiedDay(scope.table, scope.day),
  ]);
  return { migrated, record };
}

async function planOf(
  schema: TableSchema,
  scope: DayScope,
  figures: DayFigures,
  chunks: Promise<KeyChunk[]> | undefined,
): Promise<CleanupPlan> {
  const range = recordedKeyRange(schema, figures);
  if (!range || !chunks) return { kind: "count", rows: figures.rows };
  const planned = await chunks;
  requireChunksWithin(scope, range, planned);
  return { kind: "keys", key: { column: range.column, unsigned: range.unsigned }, chunks: planned };
}

async function finish(
  deps: CleanupDeps,
  scope: DayScope,
  cleanup: DayCleanup,
  run: DeleteRun,
): Promise<void> {
  const plan = cleanup.plan;
  const chunksDone = plan.kind === "keys" ? plan.chunks.length : cleanup.chunksDone + run.chunks;
  await deps.state.markDone(scope.table, scope.day, {
    rowsDeleted: run.rowsDeleted,
    chunksDone,
    doneAt: deps.clock().toISOString(),
  });
}
