import { Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidInputError, TransientError } from "../../errors";
import { addDays } from "../../model/calendar-day";
import type { CopyDayTask } from "../../model/task";
import type { TaskQueue } from "../../ports/task-queue";
import { describeTaskQueueContract } from "../../testing/task-queue-contract";
import { deleteKeysWithPrefix, testRedisUrl, uniqueName } from "../../testing/test-services";
import { asBullmqOptions, bullmqConnection } from "../redis/bullmq-connection";
import { createRedisClient } from "../redis/create-redis-client";
import { createLocalTaskQueue } from "./bullmq-task-queue";
import { localQueueKeys } from "./local-queue-keys";

const settings = { url: testRedisUrl, auth: undefined };
const connection = bullmqConnection(settings, "producer");
const copy = (table: string, day: string): CopyDayTask => ({
  kind: "copy",
  table,
  destination: `archive.${table}`,
  filterColumn: "created_at",
  day,
});

let redis: Redis;
beforeAll(() => {
  redis = createRedisClient(settings);
});
afterAll(async () => {
  await redis.quit();
});

describeTaskQueueContract("local BullMQ queue", async () => {
  const prefix = uniqueName("tq");
  const queue = createLocalTaskQueue({ connection, prefix, attempts: 3 });
  return {
    queue,
    async cleanup() {
      await queue.close();
      await deleteKeysWithPrefix(redis, prefix);
    },
  };
});

describe("createLocalTaskQueue", () => {
  const prefixes: string[] = [];
  const open = (attempts = 3): { queue: TaskQueue; prefix: string } => {
    const prefix = uniqueName("tq");
    prefixes.push(prefix);
    return { queue: createLocalTaskQueue({ connection, prefix, attempts }), prefix };
  };
  afterAll(async () => {
    for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
  });

  it("stores one job per task, named by kind, with the payload as data", async () => {
    const { queue, prefix } = open(4);
    const task = copy("orders", "2020-01-31");
    await queue.enqueue([task]);

    const job = await redis.hgetall(`${prefix}:jobs-migration:copy|orders|2020-01-31`);
    expect(job.name).toBe("copy");
    expect(JSON.parse(job.data ?? "null")).toEqual(task);
    expect(JSON.parse(job.opts ?? "null")).toMatchObject({ attempts: 4, removeOnComplete: true });
    await queue.close();
  });

  it("rejects a malformed task before writing anything", async () => {
    const { queue, prefix } = open();
    const bad = { ...copy("orders", "2020-01-31"), table: "orders; DROP TABLE x" };
    await expect(queue.enqueue([copy("orders", "2020-02-01"), bad])).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    expect(await queue.count()).toBe(0);
    expect(await redis.exists(localQueueKeys(prefix).queuedDays("copy", "orders"))).toBe(0);
    await queue.close();
  });

  it("adds again a day whose job was left in the completed or failed set", async () => {
    const { queue, prefix } = open();
    // Jobs finished by a plain BullMQ worker that keeps them, as an older setup might have.
    const raw = new Queue("jobs-migration", { connection: asBullmqOptions(connection), prefix });
    const options = { removeOnComplete: false, removeOnFail: false, attempts: 1 };
    await raw.add("copy", copy("orders", "2020-01-01"), { ...options, jobId: "copy|orders|2020-01-01" });
    await raw.add("copy", copy("orders", "2020-01-02"), { ...options, jobId: "copy|orders|2020-01-02" });
    const worker = new Worker(
      "jobs-migration",
      async (job) => {
        if (job.id?.endsWith("02")) throw new Error("boom");
      },
      {
        connection: asBullmqOptions({ ...connection, maxRetriesPerRequest: null, commandTimeout: undefined }),
        prefix,
      },
    );
    await new Promise<void>((resolve) => {
      let seen = 0;
      const done = () => {
        if (++seen === 2) resolve();
      };
      worker.on("completed", done);
      worker.on("failed", done);
    });
    await worker.close();
    expect(await raw.getJobCountByTypes("completed", "failed")).toBe(2);
    await raw.close();

    const tasks = [copy("orders", "2020-01-01"), copy("orders", "2020-01-02")];
    expect(await queue.enqueue(tasks)).toEqual({ added: 2, alreadyQueued: 0 });
    expect(await queue.count()).toBe(2);
    expect([...(await queue.queuedDays("copy", "orders"))].sort()).toEqual(["2020-01-01", "2020-01-02"]);
    expect(await redis.zcard(`${prefix}:jobs-migration:failed`)).toBe(0);
    await queue.close();
  });

  it("drops index entries whose job is gone, on read and on settle", async () => {
    const { queue, prefix } = open();
    await queue.enqueue([copy("orders", "2020-03-01"), copy("orders", "2020-03-02")]);
    const indexKey = localQueueKeys(prefix).queuedDays("copy", "orders");
    // A day left behind by a crash between a job's end and its bookkeeping.
    await redis.zadd(indexKey, Date.now(), "2019-12-31");

    expect([...(await queue.queuedDays("copy", "orders"))].sort()).toEqual(["2020-03-01", "2020-03-02"]);
    expect(await redis.zscore(indexKey, "2019-12-31")).toBeNull();

    await redis.del(`${prefix}:jobs-migration:copy|orders|2020-03-01`);
    await queue.settle(copy("orders", "2020-03-01"));
    await queue.settle(copy("orders", "2020-03-02"));
    expect((await redis.zrange(indexKey, "0", "-1")).sort()).toEqual(["2020-03-02"]);
    await queue.close();
  });

  it("reads the queued days of a queue whose book is a plain set of days, under the same key", async () => {
    const { queue, prefix } = open();
    await queue.enqueue([copy("orders", "2020-03-01"), copy("orders", "2020-03-02")]);
    // How the book looked before its entries carried an enqueue time, with a day whose job is gone.
    const indexKey = localQueueKeys(prefix).queuedDays("copy", "orders");
    await redis.del(indexKey);
    await redis.sadd(indexKey, "2020-03-01", "2020-03-02", "2019-12-31");

    expect([...(await queue.queuedDays("copy", "orders"))].sort()).toEqual(["2020-03-01", "2020-03-02"]);
    expect(await redis.type(indexKey)).toBe("zset");
    expect(await queue.enqueue([copy("orders", "2020-03-02"), copy("orders", "2020-03-03")])).toEqual({
      added: 1,
      alreadyQueued: 1,
    });
    expect((await redis.zrange(indexKey, "0", "-1")).sort()).toEqual([
      "2020-03-01",
      "2020-03-02",
      "2020-03-03",
    ]);
    await queue.close();
  });

  it("enqueues a planning run of 10,000 tasks once", async () => {
    const { queue } = open();
    const tasks = Array.from({ length: 10_000 }, (_, i) => copy(`t${i % 10}`, addDays("1990-01-01", i)));
    expect(await queue.enqueue(tasks)).toEqual({ added: 10_000, alreadyQueued: 0 });
    expect(await queue.count()).toBe(10_000);
    expect(await queue.enqueue(tasks)).toEqual({ added: 0, alreadyQueued: 10_000 });
    expect((await queue.queuedDays("copy", "t3")).size).toBe(1_000);
    await queue.close();
  });

  it("fails with TransientError within seconds when Redis is down, and closes", async () => {
    const queue = createLocalTaskQueue({
      connection: bullmqConnection({ url: "redis://127.0.0.1:1", auth: undefined }, "producer"),
      prefix: uniqueName("tq"),
      attempts: 3,
    });
    const started = Date.now();
    await expect(queue.enqueue([copy("orders", "2020-01-01")])).rejects.toBeInstanceOf(TransientError);
    await expect(queue.count()).rejects.toBeInstanceOf(TransientError);
    await expect(queue.queuedDays("copy", "orders")).rejects.toBeInstanceOf(TransientError);
    expect(Date.now() - started).toBeLessThan(8_000);
    await queue.close();
  });
});
