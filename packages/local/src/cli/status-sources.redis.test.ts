import { loadConfig } from "@table-archiver/core/config";
import { createLocalTaskQueue } from "@table-archiver/core/local-queue";
import { silentLogger } from "@table-archiver/core/logging";
import { QUEUE_NAME } from "@table-archiver/core/ports";
import { asBullmqOptions, bullmqConnection, createRedisClient } from "@table-archiver/core/redis";
import { deleteKeysWithPrefix, testRedisUrl, uniqueName } from "@table-archiver/core/testing";
import { FlowProducer, Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countLiveJobs, openStatusSources } from "./status-sources";

const settings = { url: testRedisUrl, auth: undefined };
const connection = asBullmqOptions(bullmqConnection(settings, "producer"));
const prefixes: string[] = [];

let redis: Redis;
beforeAll(() => {
  redis = createRedisClient(settings);
});
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
  await redis.quit();
});

function newPrefix(): string {
  const prefix = uniqueName("status");
  prefixes.push(prefix);
  return prefix;
}

describe("countLiveJobs", () => {
  it("gives the queue adapter's count (BullMQ's) with jobs in every state, finished ones left out", async () => {
    const prefix = newPrefix();
    const adapter = createLocalTaskQueue({ redis: settings, prefix, attempts: 1 });
    const queue = new Queue(QUEUE_NAME, { connection, prefix });
    const flows = new FlowProducer({ connection, prefix });
    try {
      expect(await countLiveJobs(redis, prefix)).toBe(0);
      expect(await adapter.count()).toBe(0);

      // One job taken by a worker and held there (active), one that fails for good, one that completes.
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      await queue.add("held", {}, { jobId: "held" });
      await queue.add("fails", {}, { jobId: "fails" });
      await queue.add("completes", {}, { jobId: "completes" });
      const finished = new Set<string>();
      const worker = new Worker(
        QUEUE_NAME,
        async (job) => {
          if (job.id === "held") await held;
          if (job.id === "fails") throw new Error("fails for good");
        },
        {
          connection: { ...connection, maxRetriesPerRequest: null, commandTimeout: undefined },
          prefix,
          concurrency: 3,
        },
      );
      const settled = (ids: string[]) =>
        new Promise<void>((resolve) => {
          const check = (id?: string) => {
            if (id) finished.add(id);
            if (ids.every((each) => finished.has(each))) resolve();
          };
          worker.on("completed", (job) => check(job.id));
          worker.on("failed", (job) => check(job?.id));
          check();
        });
      await settled(["fails", "completes"]);
      // The worker holds "held"; pausing it keeps it from taking the jobs added next.
      await worker.pause(true);

      await queue.addBulk([
        { name: "waiting", data: {}, opts: { jobId: "w1" } },
        { name: "waiting", data: {}, opts: { jobId: "w2" } },
      ]);
      await queue.add("delayed", {}, { jobId: "d1", delay: 60_000 });
      await queue.add("prioritized", {}, { jobId: "p1", priority: 3 });
      // A parent waits for its child: the parent is waiting-children, the child waiting.
      await flows.add({
        name: "parent",
        queueName: QUEUE_NAME,
        opts: { jobId: "parent" },
        children: [{ name: "child", queueName: QUEUE_NAME, opts: { jobId: "child" } }],
      });

      const counts = await queue.getJobCounts();
      expect(counts).toMatchObject({
        active: 1,
        waiting: 3,
        delayed: 1,
        prioritized: 1,
        "waiting-children": 1,
        completed: 1,
        failed: 1,
      });
      expect(await adapter.count()).toBe(7);
      expect(await countLiveJobs(redis, prefix)).toBe(7);

      release();
      await settled(["held"]);
      await worker.close();
      expect(await countLiveJobs(redis, prefix)).toBe(await adapter.count());
    } finally {
      await flows.close();
      await queue.close();
      await adapter.close();
    }
  });

  it("leaves out the marker BullMQ before v5 kept at the tail of the wait list, as BullMQ's count does", async () => {
    const prefix = newPrefix();
    const wait = `${prefix}:${QUEUE_NAME}:wait`;
    await redis.rpush(wait, "job-1", "job-2", "0:1700000000000");
    expect(await countLiveJobs(redis, prefix)).toBe(2);
    await redis.del(wait);
    await redis.rpush(wait, "0:1700000000000");
    expect(await countLiveJobs(redis, prefix)).toBe(0);
  });
});

describe("openStatusSources", () => {
  it("reads the queue count, the ledger and the cleanup records over one Redis client", async () => {
    const prefix = newPrefix();
    const table = uniqueName("orders");
    const config = loadConfig({ REDIS_URL: testRedisUrl, LOCAL_QUEUE_PREFIX: prefix });
    const sources = await openStatusSources(config, silentLogger);
    try {
      expect(sources.queue.name).toBe(QUEUE_NAME);
      expect(await sources.queue.count()).toBe(0);
      expect(await sources.ledger.migratedDays(table)).toEqual([]);
      expect(await sources.cleanup.state.cleanedDays(table)).toEqual([]);
    } finally {
      await sources.close();
    }
  });
});
