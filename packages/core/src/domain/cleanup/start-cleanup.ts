import pMap from "p-map";
import { InvalidInputError, type RefusalReason, VerificationError } from "../../errors";
import type { DayCleanup } from "../../ports/cleanup-state";
import type { ReferencingKey } from "../../ports/day-deleter";
import type { CopiedDayRecord } from "../../ports/migration-ledger";
import type { CalendarDay } from "../days/calendar-day";
import type { CleanupMessage } from "../messages/cleanup-message";
import { describeExisting, requireDatetimeColumn } from "../migration/resolve-tables";
import type { CleanDayTask } from "../tasks/task-payload";
import { formatDestination, parseDestination } from "../types/destination";
import { integerKeyColumn, type TableSchema } from "../types/table-schema";
import type { CleanupDeps } from "./cleanup-deps";
import { describeTriggers } from "./day-guards";
import { recordedKeyRange } from "./plan-cleanup";
import { type DayVerdict, verifyDay } from "./verify-day";

/** Days verified at once in a dry run (each is a few warehouse and source queries). */
const VERIFY_CONCURRENCY = 8;

/** What a cleanup message did (or, in a dry run, would do); also logged as one summary line. */
export interface CleanupSummary {
  readonly table: string;
  readonly filterColumn: string;
  readonly dryRun: boolean;
  /** Days in `mig_<table>`. */
  readonly migratedDays: number;
  readonly alreadyCleaned: number;
  /** Dry run: days that passed verification. */
  readonly verified: number;
  /** Days that cannot be cleaned (figures disagree, or no usable copy record); their rows are kept. */
  readonly refused: number;
  /** Dry run: days part-deleted by an earlier run, which a task would finish. */
  readonly resuming: number;
  /** Dry run: rows the cleanup would delete. */
  readonly rowsToDelete: number;
  /** Cleanup tasks newly queued (0 in a dry run). */
  readonly enqueued: number;
  readonly alreadyQueued: number;
  /** The days counted in `refused`, each with why; logged per day, not in the summary line. */
  readonly refusals: readonly DayRefusal[];
}

/** A day cleanup refused (or, in a dry run, would refuse); its rows are kept. */
export interface DayRefusal {
  readonly day: CalendarDay;
  readonly refusal: RefusalReason;
  readonly reason: string;
}

/**
 * Cleanup mode. Validates the table and column, refuses a table with DELETE
 * triggers unless the message allows them, refuses while the queue still
 * holds copy tasks for the table, then for every day of
 * `mig_<table>`, oldest first: in a dry run (the default) verifies the day and
 * logs the rows and the statement that would delete them, changing nothing;
 * otherwise queues one cleanup task per day not yet cleaned or queued (each
 * task verifies its day before deleting anything).
 */
export async function startCleanup(deps: CleanupDeps, message: CleanupMessage): Promise<CleanupSummary> {
  const table = message.clean_table;
  const column = message.filter_column;
  const schema = await describeExisting(deps.source, table, "clean_table");
  requireDatetimeColumn(schema, column, "filter_column");

  const [queuedCopies, sideEffects] = await Promise.all([
    deps.queue.queuedDays("copy", schema.name),
    deps.deleter.sideEffects(schema.name),
  ]);
  if (sideEffects.deleteTriggers.length > 0 && !message.allow_delete_triggers) {
    throw new InvalidInputError(
      "allow_delete_triggers",
      describeTriggers(schema.name, sideEffects.deleteTriggers),
    );
  }
  if (queuedCopies.size > 0) {
    deps.logger.warn("cleanup refused: the migration of this table is still queued", {
      table: schema.name,
      copyTasksQueued: queuedCopies.size,
    });
    throw new VerificationError(
      `cleanup of "${schema.name}" refused: ${queuedCopies.size} copy tasks for it are still queued; ` +
        "run it again once the migration has finished",
      { field: "clean_table", reason: "queued" },
    );
  }

  const days = [...(await deps.ledger.migratedDays(schema.name))].sort();
  const cleaned = new Set(await deps.state.cleanedDays(schema.name));
  const pending = days.filter((day) => !cleaned.has(day));
  const records = await deps.ledger.copiedDays(schema.name, pending);
  requireColumnWasUsed(schema.name, column, records);
  await requireWarehouseTables(deps, schema.name, records);

  const base = {
    table: schema.name,
    filterColumn: column,
    dryRun: message.dry_run,
    migratedDays: days.length,
    alreadyCleaned: days.length - pending.length,
  };
  const summary = message.dry_run
    ? {
        ...base,
        ...(await dryRun(
          deps,
          { schema, column, referencingKeys: sideEffects.referencingKeys },
          pending,
          records,
        )),
        enqueued: 0,
        alreadyQueued: 0,
      }
    : { ...base, ...(await enqueue(deps, message, schema.name, pending, records)) };
  const { refusals: _perDay, ...line } = summary;
  deps.logger.info(message.dry_run ? "cleanup dry run: nothing was deleted" : "cleanup queued", line);
  return summary;
}

/**
 * A warehouse without the tables the days were copied to (another DUCKDB_PATH
 * or dataset than the migration's) would refuse every day: say so once.
 */
async function requireWarehouseTables(
  deps: CleanupDeps,
  table: string,
  records: readonly (CopiedDayRecord | undefined)[],
): Promise<void> {
  const names = [...new Set(records.flatMap((record) => (record ? [record.destination] : [])))];
  if (names.length === 0) return;
  const warehouse = await deps.warehouse();
  for (const name of names) {
    const destination = parseDestination(name, { field: "destination", ...deps.destinations });
    if (await warehouse.hasTable(destination)) continue;
    throw new VerificationError(
      `cleanup of "${table}" refused: ${deps.warehouseLabel} has no table ${formatDestination(destination)}, ` +
        "where its days were copied; nothing was checked or deleted. Point the warehouse variables at the " +
        "warehouse the migration wrote to",
      { field: "clean_table", reason: "warehouse" },
    );
  }
}

/** A message naming a column no copy of this table used would refuse every day: say so up front. */
function requireColumnWasUsed(
  table: string,
  column: string,
  records: readonly (CopiedDayRecord | undefined)[],
): void {
  const used = new Set(records.flatMap((record) => (record ? [record.filterColumn] : [])));
  if (used.size > 0 && !used.has(column)) {
    throw new InvalidInputError(
      "filter_column",
      `"${table}" was migrated by ${[...used].map((c) => `"${c}"`).join(", ")}, not "${column}"`,
    );
  }
}

async function enqueue(
  deps: CleanupDeps,
  message: CleanupMessage,
  table: string,
  days: readonly CalendarDay[],
  records: readonly (CopiedDayRecord | undefined)[],
) {
  const column = message.filter_column;
  const flags = {
    ...(message.recopy_changed_days ? { recopyChangedDays: true } : {}),
    ...(message.allow_delete_triggers ? { allowDeleteTriggers: true } : {}),
  };
  const tasks: CleanDayTask[] = [];
  const refusals: DayRefusal[] = [];
  for (const [index, day] of days.entries()) {
    const record = records[index];
    if (record?.filterColumn === column) {
      tasks.push({ kind: "clean", table, filterColumn: column, day, ...flags });
      continue;
    }
    const refusal: DayRefusal = {
      day,
      refusal: "no-record",
      reason: record ? `copied by column "${record.filterColumn}"` : "no copy record for the day",
    };
    refusals.push(refusal);
    deps.logger.warn("cleanup refused day; its rows are kept", { table, ...refusal });
  }
  const result = await deps.queue.enqueue(tasks);
  return {
    verified: 0,
    refused: refusals.length,
    refusals,
    resuming: 0,
    rowsToDelete: 0,
    enqueued: result.added,
    alreadyQueued: result.alreadyQueued,
  };
}

/** The table a dry run verifies, and the foreign keys that reference it. */
interface DryRunTable {
  readonly schema: TableSchema;
  readonly column: string;
  readonly referencingKeys: readonly ReferencingKey[];
}

async function dryRun(
  deps: CleanupDeps,
  { schema, column, referencingKeys }: DryRunTable,
  days: readonly CalendarDay[],
  records: readonly (CopiedDayRecord | undefined)[],
) {
  const totals = { verified: 0, refused: 0, resuming: 0, rowsToDelete: 0, refusals: [] as DayRefusal[] };
  const results = await pMap(
    [...days.entries()],
    async ([index, day]) => {
      const state = await deps.state.read({ table: schema.name, day });
      if (state?.status === "deleting") return { day, state, verdict: undefined };
      const record = records[index];
      const input = { schema, filterColumn: column, day, referencingKeys, ...(record ? { record } : {}) };
      return { day, state: undefined, verdict: await verifyDay(deps, input) };
    },
    { concurrency: VERIFY_CONCURRENCY },
  );
  for (const result of results) {
    const scope = { table: schema.name, column, day: result.day };
    if (result.state) {
      const rows = remainingRows(result.state);
      totals.resuming += 1;
      totals.rowsToDelete += rows;
      deps.logger.info("cleanup dry run: day would resume deleting", {
        ...scope,
        rowsToDelete: rows,
        rowsDeleted: result.state.rowsDeleted,
        statement: deps.deleter.describeDelete(scope, recordedKeyRange(schema, result.state.figures)),
      });
      continue;
    }
    if (result.verdict) logVerdict(deps, schema, scope, result.verdict, totals);
  }
  return totals;
}

function logVerdict(
  deps: CleanupDeps,
  schema: TableSchema,
  scope: { table: string; column: string; day: CalendarDay },
  verdict: DayVerdict,
  totals: { verified: number; refused: number; rowsToDelete: number; refusals: DayRefusal[] },
): void {
  if (verdict.kind === "refused") {
    totals.refused += 1;
    totals.refusals.push({ day: scope.day, refusal: verdict.category, reason: verdict.reason });
    deps.logger.warn("cleanup dry run: day refused; its rows would be kept", {
      ...scope,
      refusal: verdict.category,
      reason: verdict.reason,
      source: verdict.source,
      warehouse: verdict.warehouse,
      recorded: verdict.recorded,
    });
    return;
  }
  totals.verified += 1;
  const rows = verdict.kind === "ready" ? verdict.figures.rows : 0;
  totals.rowsToDelete += rows;
  deps.logger.info("cleanup dry run: day verified", {
    ...scope,
    rowsToDelete: rows,
    chunks: Math.ceil(rows / deps.settings.chunkRows),
    verification: integerKeyColumn(schema)
      ? "rows, content fingerprint, and key count, sum, min, max"
      : "rows and content fingerprint",
    ...(rows > 0
      ? { statement: deps.deleter.describeDelete(scope, recordedKeyRange(schema, verdict.figures)) }
      : { note: "no source rows left; the warehouse holds the full copy" }),
  });
}

function remainingRows(state: DayCleanup): number {
  const plan = state.plan;
  if (plan.kind !== "chunks") return 0;
  return plan.chunks.slice(state.chunksDone).reduce((sum, chunk) => sum + chunk.rows, 0);
}
