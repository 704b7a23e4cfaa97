import { v2, v2beta3 } from "@google-cloud/tasks";
import type { Redis } from "ioredis";
import { type TaskPayload, taskKey } from "../../model/task";
import type { EnqueueResult, TaskQueue } from "../../ports/task-queue";
import { QUEUE_NAME } from "../../ports/task-queue";
import { createQueuedDaysBook } from "../redis/queued-days-book";
import { type CloudTasksErrorContext, grpcCode, mapCloudTasksError, Status } from "./cloud-tasks-errors";
import { retryHorizonMs } from "./retry-horizon";
import { createTaskRequest, hourlyRun, queuePath, type TaskTarget } from "./task-request";

/** Options of the google-gax clients (apiEndpoint, port, fallback, authClient, ...). */
export type CloudTasksClientOptions = NonNullable<ConstructorParameters<typeof v2.CloudTasksClient>[0]>;

export interface CloudTasksQueueOptions extends TaskTarget {
  /** Redis for the per-table bookkeeping; the caller owns it unless `ownsRedis`. */
  readonly ledgerRedis: Redis;
  readonly ownsRedis?: boolean;
  /** Start of the bookkeeping keys. @default `archiver:cloud-tasks:<project>:<location>` */
  readonly bookkeepingPrefix?: string;
  /** For the stand-in: `{ apiEndpoint, port, protocol: "http", fallback: true, authClient }`. */
  readonly clientOptions?: CloudTasksClientOptions;
  readonly clock?: () => Date;
}

/** createTask calls in flight at once. */
const CONCURRENCY = 8;
/** How long the queue's retry config is trusted before it is read again. */
const RETRY_CONFIG_TTL_MS = 10 * 60_000;
/** Run suffixes tried when a task name is still remembered from a finished task. */
const RERUN_SUFFIXES = ["", "r1", "r2", "r3"];

/**
 * The queue `jobs-migration` on Cloud Tasks. Each task is an HTTP POST of the
 * task payload (JSON) to the task handler, authenticated with an OIDC token of
 * the invoker service account (audience: the handler URL), with the
 * configured dispatch deadline. Task names hash (kind, table, day, run), so a
 * duplicate create answers ALREADY_EXISTS and is counted as already queued;
 * see `hourlyRun` for why the run is part of the name. When the name belongs
 * to a task that already finished (Cloud Tasks remembers it for a while), the
 * task is created again under a suffixed run instead.
 *
 * `count()` is the queue's `stats.tasksCount` (v2beta3 getQueue with the
 * `stats` read mask; an estimate that Cloud Tasks keeps current).
 *
 * Bookkeeping: Cloud Tasks counts per queue, not per table, so queued days are
 * kept in the queued-days book in Redis (see createQueuedDaysBook): added
 * before each create (and removed again if the create fails), removed by
 * `settle()`. The book cannot see a Cloud Task, so an entry older than the
 * queue's retry horizon (its max retry duration, or the sum of its backoffs
 * over max attempts, plus dispatch deadlines) is stale and ignored, so a task
 * that died for good without being settled stops blocking its day. A stale
 * entry for a task still waiting in a backlog can at worst let the day be
 * enqueued twice, and copying a day twice is idempotent.
 */
export function createCloudTasksQueue(options: CloudTasksQueueOptions): TaskQueue {
  const parent = queuePath(options.project, options.location);
  const tasks = new v2.CloudTasksClient(options.clientOptions);
  const admin = new v2beta3.CloudTasksClient(options.clientOptions);
  const now = () => (options.clock ?? (() => new Date()))();
  const bookPrefix =
    options.bookkeepingPrefix ?? `archiver:cloud-tasks:${options.project}:${options.location}`;
  const book = createQueuedDaysBook(options.ledgerRedis, {
    key: (kind, table) => `${bookPrefix}:queued:${kind}:${table}`,
    clock: () => now().getTime(),
    horizonMs: () => horizonMs(),
  });
  const context = (action: CloudTasksErrorContext["action"]): CloudTasksErrorContext => ({
    action,
    queuePath: parent,
    invokerServiceAccount: options.invokerServiceAccount,
  });
  let horizon: { readonly ms: number; readonly readAt: number } | undefined;

  /** Creates one task: "added", "queued" (a live task has its name), or throws. */
  async function create(task: TaskPayload, run: string): Promise<"added" | "queued"> {
    for (const suffix of RERUN_SUFFIXES) {
      const request = createTaskRequest(options, task, `${run}${suffix}`);
      try {
        await tasks.createTask(request);
        return "added";
      } catch (error) {
        if (grpcCode(error) !== Status.ALREADY_EXISTS) throw error;
        if (await isLive(request.task?.name ?? "")) return "queued";
      }
    }
    return "queued";
  }

  async function isLive(name: string): Promise<boolean> {
    try {
      await tasks.getTask({ name });
      return true;
    } catch (error) {
      if (grpcCode(error) === Status.NOT_FOUND) return false;
      throw error;
    }
  }

  async function horizonMs(): Promise<number> {
    if (horizon && Date.now() - horizon.readAt < RETRY_CONFIG_TTL_MS) return horizon.ms;
    try {
      const [queue] = await admin.getQueue({ name: parent });
      horizon = {
        ms: retryHorizonMs(queue.retryConfig, options.dispatchDeadlineSeconds),
        readAt: Date.now(),
      };
      return horizon.ms;
    } catch (error) {
      throw mapCloudTasksError(error, context("reading the queue"));
    }
  }

  return {
    name: QUEUE_NAME,

    async enqueue(list): Promise<EnqueueResult> {
      const unique = [...new Map(list.map((task) => [taskKey(task), task])).values()];
      const run = hourlyRun(now());
      await book.add(unique);
      const outcomes = await mapLimited(unique, CONCURRENCY, (task) => create(task, run));
      const failed = unique.filter((_, index) => outcomes[index]?.status === "rejected");
      if (failed.length > 0) {
        await book.settle(failed);
        const first = outcomes.find((outcome) => outcome.status === "rejected") as PromiseRejectedResult;
        throw mapCloudTasksError(first.reason, context("creating a task"));
      }
      const added = outcomes.filter(
        (outcome) => outcome.status === "fulfilled" && outcome.value === "added",
      ).length;
      return { added, alreadyQueued: list.length - added };
    },

    async count() {
      try {
        const [queue] = await admin.getQueue({ name: parent, readMask: { paths: ["stats"] } });
        // proto3 leaves a zero count out of the answer.
        return Number(String(queue.stats?.tasksCount ?? 0));
      } catch (error) {
        throw mapCloudTasksError(error, context("reading the queue"));
      }
    },

    queuedDays: (kind, table) => book.days(kind, table),
    settle: (task) => book.settle([task]),

    async close() {
      await Promise.allSettled([tasks.close(), admin.close()]);
      if (options.ownsRedis) await options.ledgerRedis.quit().catch(() => options.ledgerRedis.disconnect());
    },
  };
}

/** Runs `work` over `items` with at most `limit` in flight, keeping every outcome in order. */
async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      try {
        results[index] = { status: "fulfilled", value: await work(items[index] as T) };
      } catch (reason) {
        results[index] = { status: "rejected", reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
