import { ConfigError, type TaskPayload, taskKey } from "@table-archiver/core";
import { startLocalWorker } from "@table-archiver/core/local-queue";
import type { Runtime } from "@table-archiver/core/runtime";
import { handleTask, logTaskFailure, type TaskResult, taskErrorInfo } from "@table-archiver/task-handler";
import { holdWarehouse } from "./hold-warehouse";
import { limitCleanup } from "./limit-cleanup";
import { TasksLeft } from "./tasks-left";

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
  /** Why a day was refused, when the error says (VerificationError's `reason`). */
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
}

/**
 * Works the local queue `jobs-migration` with the task handler's own code
 * (`handleTask`), the same code the HTTP function runs. Up to
 * WORKER_CONCURRENCY tasks run at once, of which at most CLEANUP_CONCURRENCY
 * are cleanup tasks (see limitCleanup). Every failed attempt is logged as the
 * HTTP function logs it (logTaskFailure), retried or final.
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
  const progress = { done: 0, failed: 0, remaining: 0, rows: 0 };
  const copied = { days: 0, rows: 0 };
  const cleanup = { cleaned: 0, alreadyClean: 0, alreadyDone: 0, rowsDeleted: 0 };
  const failed: FailedTask[] = [];
  let retried = 0;
  // Results of tasks that passed, counted once the worker reports them completed.
  const results = new Map<string, TaskResult>();
  const left = new TasksLeft();
  const finished = () => progress.done + progress.failed;
  // Attempts started here, and attempts whose end has been reported (done, failed for good, or failed and to be retried).
  const attempts = { started: 0, reported: 0 };
  let last: TaskPayload | undefined;
  const report = () => {
    progress.remaining = left.after(finished(), Math.max(0, attempts.started - attempts.reported));
    options.onProgress?.({ ...progress, last });
  };
  // The local worker reports the queue's count in its progress events (at most every 250 ms);
  // counting here after every task as well would add Redis round trips for nothing.
  const recount = async () => {
    const counted = await runtime.queue.count().catch(() => undefined);
    if (counted !== undefined) left.counts(counted, finished());
    report();
  };
  const tally = (result: TaskResult | undefined) => {
    if (result?.kind === "copy") {
      copied.days += 1;
      copied.rows += result.record.figures.rows;
      progress.rows += result.record.figures.rows;
    } else if (result?.kind === "clean") {
      const { outcome, rowsDeleted } = result.report;
      if (outcome === "cleaned") {
        cleanup.cleaned += 1;
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
      attempts.started += 1;
      results.set(taskKey(task), await handle(task));
      last = task;
    },
    onEvent: (event) => {
      // A job whose data is not a task fails without `process` having started it.
      if (event.type === "completed" || (event.type === "failed" && event.task)) attempts.reported += 1;
      if (event.type === "completed") {
        progress.done += 1;
        const key = taskKey(event.task);
        tally(results.get(key));
        results.delete(key);
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
          progress.failed += 1;
          const failure = { task: event.task, jobId: event.jobId, ...taskErrorInfo(event.error) };
          failed.push(failure);
          options.onFailed?.(failure);
        } else retried += 1;
      } else if (event.type === "progress") left.counts(event.remaining, finished());
      else return;
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
    async drained() {
      await recount();
      await worker.drained();
      // The worker has just seen the queue empty (and reported it, unless it already had).
      left.counts(0, finished());
      report();
    },
    close: () => worker.close(),
  };
}
