import { ConfigError, type RetentionPolicy, type TaskPayload, taskKey } from "@table-archiver/core";
import { startLocalWorker } from "@table-archiver/core/local-queue";
import type { Runtime } from "@table-archiver/core/runtime";
import {
  countTaskEnd,
  endingOf,
  handleTask,
  logTaskFailure,
  type TaskResult,
  taskErrorInfo,
} from "@table-archiver/task-handler";
import { type RunningSchedules, startSchedules } from "../schedules/run-schedules";
import { holdWarehouse } from "./hold-warehouse";
import { limitCleanup } from "./limit-cleanup";

export interface WorkerProgress {
  readonly done: number;
  readonly failed: number;
  readonly remaining: number;
  /** Rows copied by copy tasks plus rows deleted by cleanup tasks. */
  readonly rows: number;
  readonly last?: TaskPayload;
}

/** A task that failed for good: invalid, refused (code VERIFICATION_FAILED), or out of attempts. */
export interface FailedTask {
  /** Undefined when the job's data was not a task. */
  readonly task: TaskPayload | undefined;
  readonly jobId: string | undefined;
  /** INVALID_INPUT, VERIFICATION_FAILED, TRANSIENT, INVALID_CONFIG or INTERNAL. */
  readonly code: string;
  /** Why a day was refused, when the error says (RefusalError's `reason`). */
  readonly reason: string | undefined;
  readonly message: string;
}

/** What the tasks this worker finished came to. */
export interface WorkerOutcomes {
  /** Copy tasks done, and the rows they copied. */
  readonly copied: { readonly days: number; readonly rows: number };
  /** Cleanup tasks done, by outcome, and the rows deleted by the days cleaned here. */
  readonly cleanup: {
    readonly cleaned: number;
    readonly alreadyClean: number;
    readonly alreadyDone: number;
    readonly rowsDeleted: number;
  };
  /** Tasks that failed for good, refused ones included, in the order they failed. */
  readonly failed: readonly FailedTask[];
  /** Failed attempts the queue retries. */
  readonly retried: number;
}

export interface RunWorkerOptions {
  readonly onProgress?: (progress: WorkerProgress) => void;
  /** Called once for every task that fails for good, as it happens. */
  readonly onFailed?: (failure: FailedTask) => void;
  /** Delay before a task's first retry (later ones double); the local worker's default when unset. */
  readonly backoffMs?: number;
  /**
   * ARCHIVER_POLICIES, read: their schedulers are set in Redis (others removed)
   * and the worker publishes each scheduled run. Unset: schedules are left alone.
   */
  readonly policies?: readonly RetentionPolicy[];
}

/**
 * Works the local queue `jobs-migration` with the task handler's own code
 * (`handleTask`), the same code the HTTP function runs. Up to
 * WORKER_CONCURRENCY tasks run at once, of which at most CLEANUP_CONCURRENCY
 * are cleanup tasks (see limitCleanup). Every failed attempt is logged as the
 * HTTP function logs it (logTaskFailure), retried or final.
 *
 * Every task finished for good is counted in its run (countTaskEnd), and
 * `drained()` and `close()` wait for those counts, so a run whose last task
 * ran here has its history row written before they resolve.
 *
 * One worker per DuckDB file: the warehouse is opened before any task is
 * taken, and a file another process holds stops the worker here with
 * WarehouseInUseError (see holdWarehouse), no task attempt spent.
 */
export async function runWorker(runtime: Runtime, options: RunWorkerOptions = {}) {
  await holdWarehouse(runtime);
  const queue = runtime.config.queue;
  if (queue.kind !== "local") {
    throw new ConfigError(`QUEUE=${queue.kind}: the worker works the local queue; set QUEUE=local`, {
      field: "QUEUE",
    });
  }
  // Before any task is taken, so a worker whose schedules cannot be set takes no task either.
  const schedules: RunningSchedules | undefined = options.policies
    ? await startSchedules(runtime, options.policies, { prefix: queue.prefix })
    : undefined;
  const progress = { done: 0, failed: 0, remaining: 0, rows: 0 };
  const copied = { days: 0, rows: 0 };
  const cleanup = { cleaned: 0, alreadyClean: 0, alreadyDone: 0, rowsDeleted: 0 };
  const failed: FailedTask[] = [];
  let retried = 0;
  // Results of tasks that passed, counted once the worker reports them completed.
  const results = new Map<string, TaskResult>();
  let last: TaskPayload | undefined;
  // Counts of ended tasks in their runs, still being written.
  const ending = new Set<Promise<void>>();
  const ended = (task: TaskPayload, end: Parameters<typeof countTaskEnd>[2]) => {
    const counted = countTaskEnd(runtime, task, end).finally(() => ending.delete(counted));
    ending.add(counted);
  };
  const endsCounted = async () => {
    while (ending.size > 0) await Promise.all(ending);
  };
  // The worker's own figure of the tasks left (see LocalWorker.remaining), as of this report.
  const report = () => {
    progress.remaining = worker.remaining();
    options.onProgress?.({ ...progress, last });
  };
  const tally = (result: TaskResult | undefined) => {
    if (result?.kind === "copy") {
      copied.days += 1;
      copied.rows += result.record.figures.rows;
      progress.rows += result.record.figures.rows;
    } else if (result?.kind === "clean") {
      const { outcome, rowsDeleted, partition } = result.report;
      if (outcome === "cleaned") {
        // A partition emptied at once cleans all its days in one task.
        cleanup.cleaned += partition?.outcome === "cleaned" ? partition.days.length : 1;
        cleanup.rowsDeleted += rowsDeleted;
        progress.rows += rowsDeleted;
      } else if (outcome === "already-clean") cleanup.alreadyClean += 1;
      else cleanup.alreadyDone += 1;
    }
  };
  const handle = limitCleanup(runtime.config.cleanup.concurrency, (task) => handleTask(runtime, task));
  const worker = startLocalWorker({
    redis: runtime.config.redis,
    prefix: queue.prefix,
    concurrency: runtime.config.workerConcurrency,
    ...(options.backoffMs === undefined ? {} : { backoffMs: options.backoffMs }),
    process: async (task) => {
      results.set(taskKey(task), await handle(task));
      last = task;
    },
    onEvent: (event) => {
      if (event.type === "completed") {
        progress.done += 1;
        const key = taskKey(event.task);
        const result = results.get(key);
        tally(result);
        results.delete(key);
        if (result) ended(event.task, endingOf(result));
      } else if (event.type === "failed") {
        if (event.task) results.delete(taskKey(event.task));
        logTaskFailure(runtime.logger, {
          error: event.error,
          retry: !event.final,
          task: event.task,
          attempt: event.attempt,
          maxAttempts: event.maxAttempts,
          fields: { jobId: event.jobId },
        });
        if (event.final) {
          if (event.task) ended(event.task, { kind: "failed", error: event.error });
          progress.failed += 1;
          const failure = { task: event.task, jobId: event.jobId, ...taskErrorInfo(event.error) };
          failed.push(failure);
          options.onFailed?.(failure);
        } else retried += 1;
      } else if (event.type !== "progress") return;
      report();
    },
  });
  return {
    progress: (): WorkerProgress => ({ ...progress, last }),
    /** What the tasks finished so far came to. */
    outcomes: (): WorkerOutcomes => ({
      copied: { ...copied },
      cleanup: { ...cleanup },
      failed: [...failed],
      retried,
    }),
    /** Resolves once the worker is connected and taking tasks. */
    ready: () => worker.ready(),
    /** Reports the queue's count, works it until it is empty, and reports that. */
    async drained() {
      await worker.drained();
      await endsCounted();
      report();
    },
    /** Schedulers upserted and removed at start, when policies were given. */
    schedules: schedules && { upserted: schedules.upserted, removed: schedules.removed },
    async close() {
      await Promise.all([worker.close(), schedules?.close()]);
      await endsCounted();
    },
  };
}
