import { InvalidInputError, RefusalError } from "../../errors";
import type { CalendarDay } from "../../model/calendar-day";
import { formatDestination, parseDestination } from "../../model/destination";
import type { CleanDayTask } from "../../model/task";
import type { DeleteSideEffects } from "../../ports/day-deleter";
import { planAccessReport, requireAccess } from "../access/account-access";
import type { CleanupMessage } from "../messages/cleanup-message";
import { cleanupLimits, splitByFloor, type TaskLimits } from "../retention/cleanup-limits";
import { describeSourceTable } from "../source-table";
import { type CleanupDeps, pendingDays } from "./cleanup-deps";
import { dryRunCleanup, dryRunPartitions, type PendingDay } from "./cleanup-dry-run";
import { copyRecordProblem } from "./judge-day";
import { type PartitionPath, type PartitionPaths, readPartitionPaths } from "./partition/partition-paths";
import { type DayRefusal, refusalError, refuse, triggerRefusal } from "./refusal";

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
  /** Days left for the next window: the message came while its window was closed, so nothing was queued. */
  readonly deferred: number;
  readonly alreadyQueued: number;
  /**
   * Set when the account that planned the cleanup cannot see the foreign keys
   * referencing the table or its DELETE triggers (it holds SELECT only): why.
   * Nothing here then checked them; each cleanup task does, as its own
   * account, before it deletes.
   */
  readonly sideEffectsUnseen?: string;
  /** The days counted in `refused`, each with why; logged per day, not in the summary line. */
  readonly refusals: readonly DayRefusal[];
  /**
   * A partitioned table: the path each partition holding pending days takes
   * (emptied at once, or chunked, and why); logged per partition.
   */
  readonly partitions: readonly PartitionPath[];
}

/**
 * Cleanup mode. Validates the table and column, refuses the table when the
 * account cannot read it (planAccessReport: this step deletes nothing, and
 * each task proves its own account's DELETE and the rest before its first
 * delete), refuses a table with DELETE triggers it can see unless the
 * message allows them, refuses while the queue still
 * holds copy tasks for the table, then for every day of
 * `mig_<table>`, oldest first: in a dry run (the default) verifies the day and
 * logs the rows and the statement that would delete them, changing nothing;
 * otherwise queues one cleanup task per day not yet cleaned or queued (each
 * task verifies its day before deleting anything).
 */
export async function startCleanup(deps: CleanupDeps, message: CleanupMessage): Promise<CleanupSummary> {
  const table = message.clean_table;
  const column = message.filter_column;
  const schema = await describeSourceTable(deps.source, table, column, {
    table: "clean_table",
    column: "filter_column",
  });
  const access = await planAccessReport(deps, schema.name);
  deps.logger.info("cleanup account check", { table: schema.name, ...access });
  requireAccess(schema.name, access);

  const [queuedCopies, { sideEffects, unseen }] = await Promise.all([
    deps.queue.queuedDays("copy", schema.name),
    visibleSideEffects(deps, schema.name),
  ]);
  // The message names the table: one that has triggers it does not allow is bad input (its tasks refuse the same way).
  const triggers = triggerRefusal(schema.name, sideEffects, message.allow_delete_triggers);
  if (triggers) throw new InvalidInputError("allow_delete_triggers", triggers.reason);
  if (queuedCopies.size > 0) {
    deps.logger.warn("cleanup refused: the migration of this table is still queued", {
      table: schema.name,
      copyTasksQueued: queuedCopies.size,
    });
    const queued = refuse(
      "queued",
      `cleanup of "${schema.name}" refused: ${queuedCopies.size} copy tasks for it are still queued; ` +
        "run it again once the migration has finished",
    );
    throw refusalError(queued, "clean_table");
  }

  const days = await pendingDays(deps, schema.name);
  // Days younger than the retention floor are refused here, whatever the message asked, and at their task again.
  const { old, young } = splitByFloor(deps, schema.name, message, days.pending);
  const pending = await withCopyRecords(deps, schema.name, old);
  requireColumnWasUsed(schema.name, column, pending);
  await requireWarehouseTables(deps, schema.name, pending);
  const usable = pending.flatMap(({ day, record }) => (record?.filterColumn === column ? [day] : []));
  const paths = await readPartitionPaths(deps.partitions, schema.name, usable, {
    column,
    sideEffects,
    exchangePartitions: message.exchange_partitions,
  });

  const base = {
    table: schema.name,
    filterColumn: column,
    dryRun: message.dry_run,
    migratedDays: days.migrated,
    alreadyCleaned: days.migrated - days.pending.length,
    deferred: 0,
    ...(unseen ? { sideEffectsUnseen: unseen } : {}),
  };
  const limits = message.dry_run ? {} : cleanupLimits(deps, message);
  const dryRun = message.dry_run
    ? await dryRunCleanup(deps, { schema, column, referencingKeys: sideEffects.referencingKeys }, pending)
    : undefined;
  const done = dryRun
    ? {
        ...base,
        ...dryRun,
        partitions: await dryRunPartitions(deps, schema, column, paths.partitions, pending, dryRun.refusals),
        enqueued: 0,
        alreadyQueued: 0,
      }
    : limits === "closed"
      ? { ...base, ...NOTHING_QUEUED, deferred: pending.length, partitions: paths.partitions }
      : {
          ...base,
          ...(await enqueue(deps, message, schema.name, pending, paths, limits)),
          partitions: paths.partitions,
        };
  for (const refusal of young)
    deps.logger.warn("cleanup refused day; its rows are kept", { table, ...refusal });
  const summary = { ...done, refused: done.refused + young.length, refusals: [...young, ...done.refusals] };
  const { refusals: _perDay, ...line } = summary;
  const said = message.dry_run
    ? "cleanup dry run: nothing was deleted"
    : limits === "closed"
      ? "cleanup deferred: its window is closed; the next window's run takes the days up"
      : "cleanup queued";
  deps.logger.info(said, line);
  return summary;
}

/**
 * The foreign keys referencing the table and its DELETE triggers, when this
 * account may see them all; an account that may not (SELECT only, as the
 * entry function's) gets none and the reason, logged once: the dry run then
 * counts no references and sees no trigger, and each task checks both.
 */
async function visibleSideEffects(
  deps: CleanupDeps,
  table: string,
): Promise<{ readonly sideEffects: DeleteSideEffects; readonly unseen?: string }> {
  try {
    return { sideEffects: await deps.deleter.sideEffects(table) };
  } catch (error) {
    if (!(error instanceof RefusalError) || error.reason !== "privilege") throw error;
    const unseen =
      "this account cannot see the foreign keys that reference the table or its DELETE triggers, so " +
      `nothing here checked them; each cleanup task checks them as its own account before deleting (${error.message})`;
    deps.logger.warn("cleanup: foreign keys and triggers are left to the tasks", { table, reason: unseen });
    return { sideEffects: { referencingKeys: [], deleteTriggers: [] }, unseen };
  }
}

/** Pairs each day with its copy record (undefined when Redis has none), all read in one round trip. */
async function withCopyRecords(
  deps: CleanupDeps,
  table: string,
  days: readonly CalendarDay[],
): Promise<PendingDay[]> {
  const records = await deps.ledger.copiedDays(table, days);
  return days.map((day) => ({ day, record: records.get(day) }));
}

/**
 * A warehouse without the tables the days were copied to (another DUCKDB_PATH
 * or dataset than the migration's) would refuse every day: say so once.
 */
async function requireWarehouseTables(
  deps: CleanupDeps,
  table: string,
  days: readonly PendingDay[],
): Promise<void> {
  const names = [...new Set(days.flatMap(({ record }) => (record ? [record.destination] : [])))];
  if (names.length === 0) return;
  const warehouse = await deps.warehouse();
  for (const name of names) {
    const destination = parseDestination(name, deps.destinations);
    if (await warehouse.hasTable(destination)) continue;
    const missing = refuse(
      "warehouse",
      `cleanup of "${table}" refused: ${deps.warehouseLabel} has no table ${formatDestination(destination)}, ` +
        "where its days were copied; nothing was checked or deleted. Point the warehouse variables at the " +
        "warehouse the migration wrote to",
    );
    throw refusalError(missing, "clean_table");
  }
}

/** A message naming a column no copy of this table used would refuse every day: say so up front. */
function requireColumnWasUsed(table: string, column: string, days: readonly PendingDay[]): void {
  const used = new Set(days.flatMap(({ record }) => (record ? [record.filterColumn] : [])));
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
  days: readonly PendingDay[],
  paths: PartitionPaths,
  limits: TaskLimits,
) {
  const column = message.filter_column;
  const flags = {
    ...limits,
    ...(message.recopy_changed_days ? { recopyChangedDays: true } : {}),
    ...(message.allow_delete_triggers ? { allowDeleteTriggers: true } : {}),
  };
  const tasks: CleanDayTask[] = [];
  const refusals: DayRefusal[] = [];
  // A partition emptied at once is one task, named by its oldest day; its days get no task of their own.
  for (const {
    partition,
    path,
    days: [oldest],
  } of paths.partitions) {
    if (path === "exchange" && oldest !== undefined) {
      tasks.push({ kind: "clean", table, filterColumn: column, day: oldest, partition, ...flags });
    }
  }
  const onTheirOwn = new Set(paths.rest);
  for (const { day, record } of days) {
    const unvouched = copyRecordProblem(record, column);
    if (unvouched === undefined) {
      if (onTheirOwn.has(day)) tasks.push({ kind: "clean", table, filterColumn: column, day, ...flags });
      continue;
    }
    const refusal: DayRefusal = { day, refusal: "no-record", reason: unvouched };
    refusals.push(refusal);
    deps.logger.warn("cleanup refused day; its rows are kept", { table, ...refusal });
  }
  const result = await deps.queue.enqueue(tasks);
  return {
    ...NOTHING_QUEUED,
    refused: refusals.length,
    refusals,
    enqueued: result.added,
    alreadyQueued: result.alreadyQueued,
  };
}

/** The figures of a cleanup that verified and queued nothing. */
const NOTHING_QUEUED = {
  verified: 0,
  refused: 0,
  refusals: [] as readonly DayRefusal[],
  resuming: 0,
  rowsToDelete: 0,
  enqueued: 0,
  alreadyQueued: 0,
};
