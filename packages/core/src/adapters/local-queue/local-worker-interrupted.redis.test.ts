import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TransientError } from "../../errors";
import type { CopyDayTask, TaskPayload } from "../../model/task";
import { deleteKeysWithPrefix, testRedisUrl, uniqueName } from "../../testing/test-services";
import { bullmqConnection } from "../redis/bullmq-connection";
import { createRedisClient } from "../redis/create-redis-client";
import { createLocalTaskQueue } from "./bullmq-task-queue";
import { localJobId } from "./local-queue-keys";
import { type LocalWorkerEvent, startLocalWorker } from "./local-worker";

/**
 * A run a crash interrupted counts as an attempt. BullMQ counts every start of
 * a job in its hash (`ats`); the crash-recovery e2e test interrupts real runs
 * with kill -9, here earlier starts are written there directly.
 */
const settings = { url: testRedisUrl, auth: undefined };
const task: CopyDayTask = {
  kind: "copy",
  table: "orders",
  destination: "archive.orders",
  filterColumn: "created_at",
  day: "2020-01-01",
};
let redis: Redis;
const prefixes: string[] = [];

beforeAll(() => {
  redis = createRedisClient(settings);
});
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
  await redis.quit();
});

/** Queues the task with `attempts`, records `interrupted` earlier starts that never ended, then works the queue. */
async function runAfterInterruptions(attempts: number, interrupted: number) {
  const prefix = uniqueName("interrupted");
  prefixes.push(prefix);
  const queue = createLocalTaskQueue({ redis: settings, prefix, attempts });
  await queue.enqueue([task]);
  await redis.hset(`${prefix}:jobs-migration:${localJobId(task)}`, "ats", interrupted);
  const runs: { attempt: number; maxAttempts: number }[] = [];
  const events: LocalWorkerEvent[] = [];
  const worker = startLocalWorker({
    connection: bullmqConnection(settings, "worker"),
    prefix,
    concurrency: 1,
    process: async (_: TaskPayload, info) => {
      runs.push(info);
    },
    onEvent: (event) => events.push(event),
  });
  try {
    await worker.drained();
  } finally {
    await worker.close();
    await queue.close();
  }
  return { runs, events: events.filter((event) => event.type !== "progress") };
}

describe("a task whose earlier runs were interrupted", () => {
  it("runs while its attempts last, each interrupted run counted", async () => {
    const { runs, events } = await runAfterInterruptions(3, 2);
    expect(runs).toEqual([{ attempt: 3, maxAttempts: 3 }]);
    expect(events).toEqual([{ type: "completed", task, attempt: 3 }]);
  });

  it("fails for good, without running, once interrupted runs have used its attempts", async () => {
    const { runs, events } = await runAfterInterruptions(2, 2);
    expect(runs).toEqual([]);
    expect(events).toHaveLength(1);
    const [failed] = events;
    expect(failed).toMatchObject({ type: "failed", task, attempt: 3, maxAttempts: 2, final: true });
    const error = (failed as Extract<LocalWorkerEvent, { type: "failed" }>).error;
    expect(error).toBeInstanceOf(TransientError);
    expect(error.message).toMatch(/was interrupted 2 times .* has used its 2 attempts/);
  });
});
