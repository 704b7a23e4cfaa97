import { loadConfig } from "@table-archiver/core/config";
import { createLocalTaskQueue } from "@table-archiver/core/local-queue";
import { silentLogger } from "@table-archiver/core/logging";
import { QUEUE_NAME } from "@table-archiver/core/ports";
import { asBullmqOptions, bullmqConnection, createRedisClient } from "@table-archiver/core/redis";
import { deleteKeysWithPrefix, testRedisUrl, uniqueName } from "@table-archiver/core/testing";
import { FlowProducer, type Job, Queue, Worker } from "bullmq";
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
    // No processor: jobs move only when the test takes them (getNextJob).
    const worker = new Worker(QUEUE_NAME, null, {
      connection: { ...connection, maxRetriesPerRequest: null, commandTimeout: undefined },
      prefix,
      autorun: false,
    });
    try {
      expect(await countLiveJobs(redis, prefix)).toBe(0);
      expect(await adapter.count()).toBe(0);

      // Jobs taken by hand (BullMQ's manual processing: no worker loop that could take the jobs added later):
      // one held active, one failed for good, one completed.
      await queue.addBulk([
        { name: "held", data: {}, opts: { jobId: "held" } },
        { name: "fails", data: {}, opts: { jobId: "fails" } },
        { name: "completes", data: {}, opts: { jobId: "completes" } },
      ]);
      const token = "status-test";
      const taken = new Map<string, Job>();
      for (let i = 0; i < 3; i++) {
        const job = await worker.getNextJob(token, { block: false });
        if (job?.id) taken.set(job.id, job);
      }
      expect([...taken.keys()].sort()).toEqual(["completes", "fails", "held"]);
      await taken.get("fails")?.moveToFailed(new Error("fails for good"), token, false);
      await taken.get("completes")?.moveToCompleted("done", token, false);

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

      await taken.get("held")?.moveToCompleted("done", token, false);
      expect(await adapter.count()).toBe(6);
      expect(await countLiveJobs(redis, prefix)).toBe(6);
    } finally {
      await worker.close();
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
      expect(await sources.storeLedger.migratedDays(table)).toEqual([]);
      expect(await sources.cleanup.state.cleanedDays(table)).toEqual([]);
    } finally {
      await sources.close();
    }
  });
});
