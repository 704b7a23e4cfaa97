import type { JobsOptions, Queue } from "bullmq";
import { Redis, type RedisOptions } from "ioredis";
import pMemoize from "p-memoize";
import { parseTaskPayload } from "../../domain/tasks/task-payload";
import type { TaskPayload } from "../../model/task";
import type { EnqueueResult, TaskQueue } from "../../ports/task-queue";
import { QUEUE_NAME } from "../../ports/task-queue";
import { bullmqConnection } from "../redis/bullmq-connection";
import { classifyJobs } from "../redis/bullmq-job-presence";
import type { RedisSettings } from "../redis/create-redis-client";
import { withRedisErrors } from "../redis/map-redis-error";
import { createQueuedDaysBook } from "../redis/queued-days-book";
import { LOCAL_BACKOFF_TYPE, localJobId, localJobIdPrefix, localQueueKeys } from "./local-queue-keys";

/** Where the queue's Redis is: ioredis options, or config (then `bullmqConnection(redis, "producer")`). */
export type LocalQueueConnection =
  | { readonly connection: RedisOptions; readonly redis?: undefined }
  | { readonly redis: RedisSettings; readonly connection?: undefined };

export type LocalTaskQueueOptions = LocalQueueConnection & {
  /** LOCAL_QUEUE_PREFIX: every key of the queue starts with it. */
  readonly prefix: string;
  /** TASK_ATTEMPTS: runs per task, the first included. */
  readonly attempts: number;
};

/** ioredis options of a LocalQueueConnection; config gets the fail-fast producer policy. */
function localQueueRedisOptions(options: LocalQueueConnection): RedisOptions {
  return options.connection ?? bullmqConnection(options.redis, "producer");
}

/** Jobs per addBulk call; a planning run can enqueue 10,000 tasks. */
const ADD_CHUNK = 1_000;
/** How long a job that failed for good stays visible for inspection. */
const KEEP_FAILED_SECONDS = 7 * 24 * 3600;
/** BullMQ job states that still hold work: what the queue's count() counts. */
export const LIVE_STATES = ["waiting", "delayed", "active", "prioritized", "waiting-children"] as const;

/**
 * The queue `jobs-migration` on BullMQ, for the local deployment and CI.
 *
 * One job per (kind, table, day): the job id is `localJobId(task)` and the job
 * data is the task payload. Enqueueing a task whose job is live (waiting,
 * delayed, active, prioritized) counts as already queued; a job left in the
 * failed or completed set is removed and added again, so a later run retries a
 * day that failed for good. Jobs carry `attempts` and an exponential backoff
 * that the local worker computes; completed jobs are removed at once.
 *
 * `queuedDays` reads the queued-days book (see createQueuedDaysBook), filled
 * at enqueue and checked against the jobs on every read, so it costs O(that
 * table's queued days), not O(every job in the queue). Its entries never go
 * stale by age: a BullMQ job is known here, so its day stays exactly while
 * the job is live. `settle` drops one day from the book when its job is no
 * longer live; it is bookkeeping only, since reads prune anyway.
 *
 * Redis failures surface as TransientError. BullMQ itself loads on first use,
 * so importing the core does not pay for it in functions that use Cloud Tasks.
 */
export function createLocalTaskQueue(options: LocalTaskQueueOptions): TaskQueue {
  const redis = new Redis(localQueueRedisOptions(options));
  // Failures reach callers as rejected commands; the event would only repeat them.
  redis.on("error", () => {});
  const keys = localQueueKeys(options.prefix);
  const book = createQueuedDaysBook(redis, {
    key: keys.queuedDays,
    jobs: { keys, idPrefix: localJobIdPrefix },
  });
  const jobOptions: JobsOptions = {
    attempts: options.attempts,
    backoff: { type: LOCAL_BACKOFF_TYPE },
    removeOnComplete: true,
    removeOnFail: { age: KEEP_FAILED_SECONDS },
  };
  let ready: Queue | undefined;

  // BullMQ waits for a ready connection without a time limit, so the queue is
  // opened only once Redis has answered; a failed open is forgotten and retried.
  const bull = pMemoize(openQueue);

  async function openQueue(): Promise<Queue> {
    await redis.ping();
    const { Queue } = await import("bullmq");
    const queue = new Queue(QUEUE_NAME, {
      connection: redis,
      prefix: options.prefix,
      defaultJobOptions: jobOptions,
    });
    queue.on("error", () => {});
    await queue.waitUntilReady();
    ready = queue;
    return queue;
  }

  async function enqueue(tasks: readonly TaskPayload[]): Promise<EnqueueResult> {
    const unique = new Map<string, TaskPayload>();
    for (const task of tasks) {
      const id = localJobId(task);
      // Validating here keeps a malformed payload out of Redis altogether.
      if (!unique.has(id)) unique.set(id, parseTaskPayload(task));
    }
    if (unique.size === 0) return { added: 0, alreadyQueued: 0 };
    const queue = await bull();
    const ids = [...unique.keys()];
    const presence = await classifyJobs(redis, keys, ids);
    const finished = ids.filter((_, i) => presence[i] === "finished");
    await removeJobs(queue, finished);
    const toAdd = ids.filter((_, i) => presence[i] !== "live");
    for (let start = 0; start < toAdd.length; start += ADD_CHUNK) {
      await queue.addBulk(
        toAdd.slice(start, start + ADD_CHUNK).map((id) => {
          const task = unique.get(id) as TaskPayload;
          return { name: task.kind, data: task, opts: { jobId: id } };
        }),
      );
    }
    // After the jobs exist, so a concurrent read never prunes a day whose job is about to appear;
    // days already queued are added again, so a lost entry heals.
    await book.add([...unique.values()]);
    return { added: toAdd.length, alreadyQueued: tasks.length - toAdd.length };
  }

  return {
    name: QUEUE_NAME,
    enqueue: (tasks) => withRedisErrors(() => enqueue(tasks)),
    count: () => withRedisErrors(async () => (await bull()).getJobCountByTypes(...LIVE_STATES)),
    queuedDays: (kind, table) => book.days(kind, table),
    settle: (task) => book.settle([task]),
    async close() {
      await ready?.close();
      // Disconnecting also ends an open still waiting for Redis, so close never hangs.
      if (redis.status === "ready") await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}

async function removeJobs(queue: Queue, ids: readonly string[]): Promise<void> {
  for (let start = 0; start < ids.length; start += ADD_CHUNK) {
    await Promise.all(ids.slice(start, start + ADD_CHUNK).map((id) => queue.remove(id)));
  }
}
