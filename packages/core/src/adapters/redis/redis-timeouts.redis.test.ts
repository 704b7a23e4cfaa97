import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CopyDayTask } from "../../model/task";
import { startTcpProxy, type TcpProxy, throughProxy } from "../../testing/tcp-proxy";
import { deleteKeysWithPrefix, testRedisUrl, uniqueName } from "../../testing/test-services";
import { createLocalTaskQueue } from "../local-queue/bullmq-task-queue";
import { startLocalWorker } from "../local-queue/local-worker";
import { bullmqConnection } from "./bullmq-connection";
import { createRedisClient, failFastOptions } from "./create-redis-client";

/**
 * Redis commands of tasks (ledger, cleanup state, queue bookkeeping) end, and a
 * connection that stops answering is replaced, while BullMQ's worker keeps its
 * quiet blocking reads. Faults go through a TCP proxy in this process; only
 * this file's keys are written.
 */
const prefix = uniqueName("redis_timeouts");
const settings = { url: testRedisUrl, auth: undefined };
let proxy: TcpProxy;
let admin: Redis;

beforeAll(async () => {
  const server = new URL(testRedisUrl);
  proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 6379) });
  admin = createRedisClient(settings);
});

afterAll(async () => {
  await deleteKeysWithPrefix(admin, prefix);
  await admin.quit();
  await proxy?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Keeps asking until `ask` answers, for at most `seconds`; answers the seconds it took. */
async function answersWithin(seconds: number, ask: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  let last: unknown;
  while (performance.now() - started < seconds * 1000) {
    try {
      await ask();
      return (performance.now() - started) / 1000;
    } catch (error) {
      last = error;
      await sleep(200);
    }
  }
  throw new Error(`no answer within ${seconds} s; last error: ${String(last)}`);
}

describe("a task's Redis client", () => {
  it("fails a command on a connection that went silent, then replaces the connection", async () => {
    const client = createRedisClient({ url: throughProxy(testRedisUrl, proxy), auth: undefined });
    try {
      await client.set(`${prefix}:k`, "v");
      const connections = proxy.opened;
      proxy.freeze();
      const started = performance.now();
      await expect(client.get(`${prefix}:k`)).rejects.toThrow(/timed out/i);
      expect(performance.now() - started).toBeLessThan(7_000);
      // The silent socket is given up and a new connection (forwarded as usual) answers.
      const seconds = await answersWithin(20, async () => expect(await client.get(`${prefix}:k`)).toBe("v"));
      console.log(
        `[redis-timeouts] a silent connection was replaced ${seconds.toFixed(1)} s after the first timeout`,
      );
      expect(proxy.opened).toBeGreaterThan(connections);
    } finally {
      client.disconnect();
    }
  }, 40_000);

  it("bounds every command, and only the fail-fast clients", () => {
    const fast = failFastOptions();
    expect(fast.commandTimeout).toBeGreaterThan(0);
    expect(fast.socketTimeout).toBeGreaterThanOrEqual(fast.commandTimeout ?? 0);
    const worker = bullmqConnection(settings, "worker");
    expect(worker.commandTimeout).toBeUndefined();
    expect(worker.socketTimeout).toBeUndefined();
  });
});

describe("the local worker's blocking connections", () => {
  it("stay quiet longer than a task client's socket limit and still take a task", async () => {
    const queuePrefix = `${prefix}:q`;
    const queue = createLocalTaskQueue({ redis: settings, prefix: queuePrefix, attempts: 1 });
    const seen: string[] = [];
    const errors: Error[] = [];
    // The producer's options, as a caller might pass them: the worker must still take off their limits.
    const worker = startLocalWorker({
      connection: bullmqConnection(settings, "producer"),
      prefix: queuePrefix,
      concurrency: 1,
      process: async (task) => {
        seen.push(task.day);
      },
      onEvent: (event) => {
        if (event.type === "error") errors.push(event.error);
      },
    });
    try {
      await worker.ready();
      await sleep((failFastOptions().socketTimeout ?? 0) + 2_000);
      const task: CopyDayTask = {
        kind: "copy",
        table: "orders",
        destination: "archive.orders",
        filterColumn: "created_at",
        day: "2020-01-01",
      };
      await queue.enqueue([task]);
      await worker.drained();
      expect(seen).toEqual(["2020-01-01"]);
      expect(errors).toEqual([]);
    } finally {
      await worker.close();
      await queue.close();
    }
  }, 40_000);
});
