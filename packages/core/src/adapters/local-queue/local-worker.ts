import type { Job, Worker } from "bullmq";
import type { RedisOptions } from "ioredis";
import { parseTaskPayload } from "../../domain/tasks/task-payload";
import { isFinalTaskError } from "../../errors";
import type { TaskPayload } from "../../model/task";
import { QUEUE_NAME } from "../../ports/task-queue";
import { asBullmqOptions, bullmqConnection } from "../redis/bullmq-connection";
import { createLocalTaskQueue, type LocalQueueConnection } from "./bullmq-task-queue";
import { closeWorker } from "./close-worker";
import { asError, endedAttempt, interruptedTooOften, startedAttempt, taskOf } from "./job-attempts";
import { QueueProgress, type UntilClosed } from "./queue-progress";

/** What the local worker reports, for logs and a progress bar. */
export type LocalWorkerEvent =
  | { readonly type: "completed"; readonly task: TaskPayload; readonly attempt: number }
  | {
      readonly type: "failed";
      /** Undefined when the job's data is not a valid task. */
      readonly task: TaskPayload | undefined;
      readonly jobId: string | undefined;
      readonly attempt: number;
      readonly maxAttempts: number;
      /** True when the task will not run again (attempts used up, or an error that never passes). */
      readonly final: boolean;
      readonly error: Error;
    }
  /** A fresh count of the queue (a few times a second while tasks end, and as drained() starts and ends): remaining(). */
  | { readonly type: "progress"; readonly remaining: number }
  /** The worker itself failed (for example lost its Redis connection). */
  | { readonly type: "error"; readonly error: Error };

export type LocalWorkerOptions = LocalQueueConnection & {
  /** LOCAL_QUEUE_PREFIX. */
  readonly prefix: string;
  /** WORKER_CONCURRENCY: tasks run at the same time. */
  readonly concurrency: number;
  /** Delay before the first retry; each later retry waits twice as long, at most 10 minutes. @default 5000 */
  readonly backoffMs?: number;
  /** Runs one task; a rejection means retry, unless it is invalid input or a failed verification. */
  process(task: TaskPayload, info: { readonly attempt: number; readonly maxAttempts: number }): Promise<void>;
  onEvent?(event: LocalWorkerEvent): void;
};

export interface LocalWorker {
  /** Resolves once the worker is connected and taking tasks, and can count the queue. */
  ready(): Promise<void>;
  /**
   * Tasks still waiting, delayed or running: the queue's last count less the
   * tasks finished here since, never below the tasks started here and not yet
   * reported (see QueueProgress). Progress events carry the same figure.
   */
  remaining(): number;
  /**
   * Reports the queue's count at once, then resolves once the queue holds no
   * waiting, delayed or running task and every report is out (reporting zero).
   */
  drained(): Promise<void>;
  /** Lets running tasks finish, then stops. */
  close(): Promise<void>;
}

const MAX_BACKOFF_MS = 10 * 60_000;
/**
 * Crash recovery. A running job holds a lock of LOCK_MS in Redis, renewed
 * every LOCK_MS / 2 while its task runs. A worker that dies (kill -9, out of
 * memory, a lost machine) stops renewing it; every STALLED_CHECK_MS a worker
 * marks the active jobs and, at its next check, moves back to waiting those
 * whose lock has expired, where a live worker takes them at once. A task
 * interrupted by a crash therefore runs again about LOCK_MS to LOCK_MS + 2 ×
 * STALLED_CHECK_MS after the crash (5-20 s; a restarted worker also checks as
 * it starts), where BullMQ's defaults (30 s and 30 s) took 30-90 s.
 *
 * A live worker loses a lock only if it cannot renew it for LOCK_MS (its event
 * loop blocked, or Redis unreachable that long): the job then runs a second
 * time, which tasks allow (a copy replaces its day; a cleanup finds the day's
 * lease held and is retried).
 */
const LOCK_MS = 10_000;
const STALLED_CHECK_MS = 5_000;
/**
 * BullMQ fails a job for good once it has stalled more than maxStalledCount
 * times (1 by default: a task interrupted by two crashes failed whatever its
 * attempts). Here a stall counts as one of the job's attempts instead (see
 * startedAttempt), so BullMQ's own limit is set past any TASK_ATTEMPTS.
 */
const MAX_STALLS = 1_000;

/**
 * A BullMQ worker on `jobs-migration` that hands each task to `process`.
 * Invalid input and verification failures fail the task at once (BullMQ's
 * UnrecoverableError); other errors are retried with exponential backoff
 * (`backoffMs`, doubling) until the job's attempts are used up. A run
 * interrupted by a crash counts as an attempt and runs again within seconds
 * (see LOCK_MS). Tasks finished for good are settled in the queue's
 * bookkeeping. A worker waits out a Redis outage instead of failing.
 */
export function startLocalWorker(options: LocalWorkerOptions): LocalWorker {
  // No per-command or idle-socket limits: BullMQ's blocking reads need that, and a worker should wait for Redis.
  const connection: RedisOptions = {
    ...(options.connection ?? bullmqConnection(options.redis, "worker")),
    maxRetriesPerRequest: null,
    commandTimeout: undefined,
    socketTimeout: undefined,
  };
  const queue = createLocalTaskQueue({ connection, prefix: options.prefix, attempts: 1 });
  const backoffMs = options.backoffMs ?? 5_000;
  let running = 0;

  const emit = (event: LocalWorkerEvent) => options.onEvent?.(event);
  const emitError = (error: unknown) => emit({ type: "error", error: asError(error) });
  const progress = new QueueProgress(queue, (remaining) => emit({ type: "progress", remaining }), emitError);

  async function report(
    job: Job | undefined,
    final: boolean,
    events: LocalWorkerEvent[],
    settle?: TaskPayload,
  ) {
    try {
      // The report goes out even when the bookkeeping could not be settled: a
      // failure must never go unseen because Redis hiccuped right after it.
      if (settle) await queue.settle(settle).catch(emitError);
      progress.ended(job?.id, final);
      for (const event of events) emit(event);
    } catch (error) {
      emitError(error);
    }
    await progress.refresh().catch(emitError);
  }

  // BullMQ loads here rather than at import, so functions that never run a worker do not pay for it.
  const started: Promise<Worker> = import("bullmq").then(({ Worker, UnrecoverableError }) => {
    const worker = new Worker(
      QUEUE_NAME,
      async (job: Job) => {
        progress.started(job.id);
        const info = { attempt: startedAttempt(job), maxAttempts: job.opts.attempts ?? 1 };
        if (info.attempt > info.maxAttempts) {
          const error = interruptedTooOften(job, info.maxAttempts);
          throw Object.assign(new UnrecoverableError(error.message), { cause: error });
        }
        running++;
        try {
          await options.process(parseTaskPayload(job.data), info);
        } catch (error) {
          if (isFinalTaskError(error)) {
            throw Object.assign(new UnrecoverableError(asError(error).message), { cause: error });
          }
          throw asError(error);
        } finally {
          running--;
        }
      },
      {
        connection: asBullmqOptions(connection),
        prefix: options.prefix,
        concurrency: options.concurrency,
        lockDuration: LOCK_MS,
        stalledInterval: STALLED_CHECK_MS,
        maxStalledCount: MAX_STALLS,
        settings: {
          backoffStrategy: (attemptsMade) => Math.min(backoffMs * 2 ** (attemptsMade - 1), MAX_BACKOFF_MS),
        },
      },
    );

    worker.on("completed", (job) => {
      const task = taskOf(job);
      // BullMQ has counted the finished attempt in attemptsMade by now.
      const events: LocalWorkerEvent[] = task
        ? [{ type: "completed", task, attempt: endedAttempt(job) }]
        : [];
      void report(job, true, events, task);
    });

    worker.on("failed", (job, error) => {
      const task = job && taskOf(job);
      const final = !job || Boolean(job.finishedOn);
      const event: LocalWorkerEvent = {
        type: "failed",
        task,
        jobId: job?.id,
        attempt: job ? endedAttempt(job) : 0,
        maxAttempts: job?.opts.attempts ?? 1,
        final,
        error: error instanceof UnrecoverableError && error.cause instanceof Error ? error.cause : error,
      };
      void report(job, final, [event], final ? task : undefined);
    });

    worker.on("error", (error) => emit({ type: "error", error }));
    return worker;
  });
  started.catch(emitError);

  // Rejects on close, so a drained() stuck on an unreachable Redis ends with the worker.
  let onClose: (error: Error) => void = () => {};
  const closedSignal = new Promise<never>((_, reject) => {
    onClose = reject;
  });
  closedSignal.catch(() => {});
  const untilClosed: UntilClosed = (promise) => Promise.race([promise, closedSignal]);

  return {
    async ready() {
      const worker = await untilClosed(started);
      await untilClosed(worker.waitUntilReady());
      await untilClosed(progress.count());
    },
    remaining: () => progress.remaining(),
    async drained() {
      await untilClosed(started);
      await progress.drained(() => running === 0, untilClosed);
    },
    async close() {
      progress.close();
      onClose(new Error("the local worker was closed before the queue drained"));
      const worker = await started.catch(() => undefined);
      if (worker) await closeWorker(worker, () => running);
      await queue.close();
    },
  };
}
