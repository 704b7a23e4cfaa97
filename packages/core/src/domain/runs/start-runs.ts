import { NO_COUNTS, type RunCounts, type RunMode, type RunStart } from "../../model/run";
import { type TaskPayload, taskKey } from "../../model/task";
import type { TaskQueue } from "../../ports/task-queue";
import type { CleanupDeps } from "../cleanup/cleanup-deps";
import { type CleanupSummary, startCleanup } from "../cleanup/start-cleanup";
import type { CleanupMessage } from "../messages/cleanup-message";
import type { MigrationMessage } from "../messages/migration-message";
import { type StartMigrationDeps, startMigration, type TablePlan } from "../migration/start-migration";
import { datasetOf } from "../records/durable-day-record";
import { keysToBeAdded, withEnqueue } from "./run-aware-queue";
import { finishRun, type RunDeps } from "./run-deps";
import { endStaleRuns } from "./stale-runs";

/** Per table, the run its tasks belong to and the keys of the tasks the queue took for it. */
interface TableRuns {
  readonly id: (table: string) => string;
  readonly queued: Map<string, string[]>;
}

/**
 * The queue as a message's runs see it: every task enqueued carries the run
 * of its table (`run`), and the keys of the tasks each enqueue added (not
 * those the queue held already, for an earlier run) are kept for the run's
 * begin.
 */
function stampingQueue(queue: TaskQueue, runs: TableRuns): TaskQueue {
  return withEnqueue(queue, {
    async enqueue(tasks: readonly TaskPayload[]) {
      const stamped = tasks.map((task) => ({ ...task, run: runs.id(task.table) }));
      const added = new Set(await keysToBeAdded(queue, stamped));
      const result = await queue.enqueue(stamped);
      for (const task of stamped) {
        const key = taskKey(task);
        if (added.has(key)) runs.queued.set(task.table, [...(runs.queued.get(task.table) ?? []), key]);
      }
      return result;
    },
  });
}

function tableRuns(deps: RunDeps): TableRuns {
  const ids = new Map<string, string>();
  const newId = deps.newRunId ?? (() => crypto.randomUUID());
  return {
    id(table) {
      const known = ids.get(table);
      if (known !== undefined) return known;
      const id = newId();
      ids.set(table, id);
      return id;
    },
    queued: new Map(),
  };
}

/**
 * Records the run's begin, and finishes it at once when none of its tasks is
 * left to end. First, an earlier run of the same table and mode that will
 * hear nothing more is ended as failed (endStaleRuns).
 */
async function beginRun(
  deps: RunDeps,
  start: RunStart,
  tasks: readonly string[],
  counts: RunCounts,
): Promise<void> {
  await endStaleRuns(deps, start.table, start.mode);
  const finished = await deps.history.begin(start, tasks, counts, deps.clock().toISOString());
  if (finished) await finishRun(deps, finished);
}

function runStart(
  deps: RunDeps,
  base: { id: string; table: string; mode: RunMode; startedAt: string; destination?: string },
  message: { readonly policy?: string | undefined },
  dryRun?: boolean,
): RunStart {
  const { destination, ...rest } = base;
  const at = datasetOf(deps.destinations, destination);
  return {
    ...rest,
    ...at,
    ...(message.policy === undefined ? {} : { policy: message.policy }),
    ...(dryRun === undefined ? {} : { dryRun }),
  };
}

/**
 * Migration mode as runs: one run per table of the message (startMigration),
 * each of its copy tasks carrying the run, the run's row going beside the
 * table's day record. A table that queued nothing ends its run at once. When
 * a later table fails, the runs of the tables already queued still begin.
 */
export async function startMigrationRuns(
  migration: StartMigrationDeps,
  deps: RunDeps,
  message: MigrationMessage,
): Promise<Array<TablePlan & { readonly run: string }>> {
  const startedAt = deps.clock().toISOString();
  const runs = tableRuns(deps);
  const destinations = new Map(
    message.source_tables.map((table, i) => [table, message.destination_tables[i]]),
  );
  const begin = (table: string, destination: string | undefined) =>
    beginRun(
      deps,
      runStart(deps, { id: runs.id(table), table, mode: "migration", startedAt, destination }, message),
      runs.queued.get(table) ?? [],
      NO_COUNTS,
    );
  let plans: TablePlan[];
  try {
    plans = await startMigration({ ...migration, queue: stampingQueue(migration.queue, runs) }, message);
  } catch (error) {
    for (const table of runs.queued.keys()) await begin(table, destinations.get(table));
    throw error;
  }
  for (const plan of plans) await begin(plan.table, plan.destination);
  return plans.map((plan) => ({ ...plan, run: runs.id(plan.table) }));
}

/**
 * Cleanup mode as a run (startCleanup): its clean tasks carry the run, and
 * the run begins with what the message itself settled: days refused up
 * front, days deferred by a closed window, and in a dry run the days it
 * verified (as `cleaned`) and refused, a dry run queueing nothing and so
 * ending at once. Its row goes to the default dataset.
 */
export async function startCleanupRun(
  cleanup: CleanupDeps,
  deps: RunDeps,
  message: CleanupMessage,
): Promise<CleanupSummary & { readonly run: string }> {
  const startedAt = deps.clock().toISOString();
  const runs = tableRuns(deps);
  const summary = await startCleanup({ ...cleanup, queue: stampingQueue(cleanup.queue, runs) }, message);
  const id = runs.id(summary.table);
  // Days a closed window deferred, where the deployment's startCleanup counts them.
  const deferred = (summary as { readonly deferred?: number }).deferred ?? 0;
  const counts: RunCounts = summary.dryRun
    ? { ...NO_COUNTS, cleaned: summary.verified, refused: summary.refused }
    : { ...NO_COUNTS, refused: summary.refused, deferred };
  const start = runStart(
    deps,
    { id, table: summary.table, mode: "cleanup", startedAt },
    message,
    summary.dryRun,
  );
  await beginRun(deps, start, runs.queued.get(summary.table) ?? [], counts);
  return { ...summary, run: id };
}
