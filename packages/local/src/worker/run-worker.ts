import { type Runtime, startLocalWorker, type TaskPayload } from "@table-archiver/core";
import { handleTask } from "@table-archiver/task-handler";
import { limitCleanup } from "./limit-cleanup";
import { TasksLeft } from "./tasks-left";

export interface WorkerProgress {
  readonly done: number;
  readonly failed: number;
  readonly remaining: number;
  readonly rows: number;
  readonly last?: TaskPayload;
}

export interface RunWorkerOptions {
  readonly onProgress?: (progress: WorkerProgress) => void;
}

/**
 * Works the local queue `jobs-migration` with the task handler's own code
 * (`handleTask`), the same code the HTTP function runs. Up to
 * WORKER_CONCURRENCY tasks run at once, of which at most CLEANUP_CONCURRENCY
 * are cleanup tasks (see limitCleanup).
 */
export async function runWorker(runtime: Runtime, options: RunWorkerOptions = {}) {
  const progress = { done: 0, failed: 0, remaining: 0, rows: 0 };
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
  const handle = limitCleanup(runtime.config.cleanup.concurrency, (task) => handleTask(runtime, task));
  const worker = startLocalWorker({
    redis: runtime.config.redis,
    prefix: runtime.config.queue.localPrefix,
    concurrency: runtime.config.workerConcurrency,
    process: async (task) => {
      attempts.started += 1;
      const result = await handle(task);
      if (result.kind === "copy") progress.rows += result.record.figures.rows;
      last = task;
    },
    onEvent: (event) => {
      // A job whose data is not a task fails without `process` having started it.
      if (event.type === "completed" || (event.type === "failed" && event.task)) attempts.reported += 1;
      if (event.type === "completed") progress.done += 1;
      else if (event.type === "failed" && event.final) progress.failed += 1;
      else if (event.type === "progress") left.counts(event.remaining, finished());
      else return;
      report();
    },
  });
  return {
    progress: () => ({ ...progress, last }),
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
