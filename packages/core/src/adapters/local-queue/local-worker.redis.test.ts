import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { InvalidInputError, RefusalError, TransientError } from "../../errors";
import { addDays } from "../../model/calendar-day";
import type { CopyDayTask, TaskPayload } from "../../model/task";
import type { TaskQueue } from "../../ports/task-queue";
import { deleteKeysWithPrefix, testRedisUrl, uniqueName } from "../../testing/test-services";
import { bullmqConnection } from "../redis/bullmq-connection";
import { createRedisClient } from "../redis/create-redis-client";
import { createLocalTaskQueue } from "./bullmq-task-queue";
import { type LocalWorker, type LocalWorkerEvent, startLocalWorker } from "./local-worker";

const settings = { url: testRedisUrl, auth: undefined };
const copy = (day: string, table = "orders"): CopyDayTask => ({
  kind: "copy",
  table,
  destination: `archive.${table}`,
  filterColumn: "created_at",
  day,
});

type Process = (task: TaskPayload, info: { attempt: number; maxAttempts: number }) => Promise<void>;

describe("startLocalWorker", () => {
  let redis: Redis;
  const opened: { close(): Promise<void> }[] = [];
  const prefixes: string[] = [];

  /** A fresh queue and a worker on it; every event the worker reports is kept. */
  function start(process: Process, attempts = 3) {
    const prefix = uniqueName("lw");
    prefixes.push(prefix);
    const queue = createLocalTaskQueue({
      connection: bullmqConnection(settings, "producer"),
      prefix,
      attempts,
    });
    const events: LocalWorkerEvent[] = [];
    const worker = startWorker(prefix, process, events);
    opened.push(queue);
    return { queue, worker, events, prefix };
  }

  function startWorker(prefix: string, process: Process, events: LocalWorkerEvent[]): LocalWorker {
    const worker = startLocalWorker({
      connection: bullmqConnection(settings, "worker"),
      prefix,
      concurrency: 2,
      backoffMs: 20,
      process,
      onEvent: (event) => events.push(event),
    });
    opened.push(worker);
    return worker;
  }

  const failures = (events: LocalWorkerEvent[]) =>
    events.filter((event): event is Extract<LocalWorkerEvent, { type: "failed" }> => event.type === "failed");

  beforeAll(() => {
    redis = createRedisClient(settings);
  });
  afterAll(async () => {
    for (const item of opened.reverse()) await item.close().catch(() => {});
    for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
    await redis.quit();
  });

  it("processes every queued task once and then reports the queue drained", async () => {
    const seen: string[] = [];
    const { queue, worker, events } = start(async (task) => {
      seen.push(task.day);
    });
    const days = Array.from({ length: 6 }, (_, i) => addDays("2020-01-01", i));
    await queue.enqueue(days.map((day) => copy(day)));

    await worker.drained();
    expect(seen.sort()).toEqual(days);
    expect(await queue.count()).toBe(0);
    expect((await queue.queuedDays("copy", "orders")).size).toBe(0);
    expect(events.filter((event) => event.type === "completed")).toHaveLength(6);
    expect(events.at(-1)).toEqual({ type: "progress", remaining: 0 });
  });

  it("is ready before any task exists, then takes tasks enqueued later", async () => {
    const seen: string[] = [];
    const { queue, worker } = start(async (task) => {
      seen.push(task.day);
    });
    await worker.ready();
    await queue.enqueue([copy("2020-01-10"), copy("2020-01-11")]);
    await worker.drained();
    expect(seen.sort()).toEqual(["2020-01-10", "2020-01-11"]);
  });

  it("counts the queue for progress a few times a second, not after every task, and ends on zero", async () => {
    const { queue, worker, events } = start(async () => {});
    await worker.ready();
    const days = Array.from({ length: 40 }, (_, i) => addDays("2020-04-01", i));
    await queue.enqueue(days.map((day) => copy(day)));
    await worker.drained();
    const progress = events.filter((event) => event.type === "progress");
    expect(events.filter((event) => event.type === "completed")).toHaveLength(40);
    // 40 tasks that do nothing take a fraction of a second: a count per task would report 40 times,
    // one per 250 ms only a few (20 leaves room for a machine ten times slower).
    expect(progress.length).toBeLessThan(20);
    expect(events.at(-1)).toEqual({ type: "progress", remaining: 0 });
  });

  it("reports the queue empty after the last task also when nobody waits for the drain", async () => {
    const { queue, worker, events } = start(async () => {});
    await worker.ready();
    const days = Array.from({ length: 30 }, (_, i) => addDays("2020-06-01", i));
    await queue.enqueue(days.map((day) => copy(day)));
    await vi.waitFor(() => expect(events.filter((e) => e.type === "completed")).toHaveLength(30), {
      timeout: 10_000,
    });
    await vi.waitFor(
      () =>
        expect(events.filter((e) => e.type === "progress").at(-1)).toEqual({
          type: "progress",
          remaining: 0,
        }),
      { timeout: 2_000 },
    );
  });

  it("retries a failing task with backoff, with increasing attempt numbers, until it passes", async () => {
    const attempts: number[] = [];
    const { queue, worker, events } = start(async (_task, info) => {
      attempts.push(info.attempt);
      expect(info.maxAttempts).toBe(4);
      if (info.attempt < 3) throw new TransientError("MySQL went away");
    }, 4);
    await queue.enqueue([copy("2020-02-01")]);

    await worker.drained();
    expect(attempts).toEqual([1, 2, 3]);
    expect(failures(events).map((event) => [event.attempt, event.final])).toEqual([
      [1, false],
      [2, false],
    ]);
    expect(events).toContainEqual({ type: "completed", task: copy("2020-02-01"), attempt: 3 });
  });

  it("fails a task for good once its attempts are used up", async () => {
    let runs = 0;
    const { queue, worker, events } = start(async () => {
      runs++;
      throw new Error("always broken");
    }, 2);
    await queue.enqueue([copy("2020-03-01")]);

    await worker.drained();
    expect(runs).toBe(2);
    expect(failures(events).map((event) => event.final)).toEqual([false, true]);
    expect((await queue.queuedDays("copy", "orders")).size).toBe(0);
  });

  it.each([
    ["invalid input", () => new InvalidInputError("table", "does not exist")],
    ["a failed verification", () => new RefusalError("warehouse holds 3 rows, source 4")],
  ])("fails a task for good at once on %s, and lets a later run enqueue it again", async (_, error) => {
    let fail = true;
    const runs: number[] = [];
    const { queue, worker, events } = start(async (_task, info) => {
      runs.push(info.attempt);
      if (fail) throw error();
    }, 5);
    await queue.enqueue([copy("2020-04-01")]);
    await worker.drained();

    expect(runs).toEqual([1]);
    const [failure] = failures(events);
    expect(failure).toMatchObject({ final: true, attempt: 1, maxAttempts: 5, task: copy("2020-04-01") });
    expect(failure?.error).toBeInstanceOf(error().constructor);
    expect((await queue.queuedDays("copy", "orders")).size).toBe(0);

    fail = false;
    expect(await queue.enqueue([copy("2020-04-01")])).toEqual({ added: 1, alreadyQueued: 0 });
    await worker.drained();
    expect(runs).toEqual([1, 1]);
    expect(events.filter((event) => event.type === "completed")).toHaveLength(1);
  });

  it("waits for tasks in their retry backoff before reporting the queue drained", async () => {
    let finished = false;
    const { queue, worker } = start(async (_task, info) => {
      if (info.attempt === 1) throw new TransientError("later");
      await new Promise((resolve) => setTimeout(resolve, 50));
      finished = true;
    });
    await queue.enqueue([copy("2020-05-01")]);
    await worker.drained();
    expect(finished).toBe(true);
  });

  it("reports an empty queue drained at once", async () => {
    const { worker } = start(async () => {});
    await expect(worker.drained()).resolves.toBeUndefined();
  });

  it("closes within seconds while Redis is down", async () => {
    const events: LocalWorkerEvent[] = [];
    const worker = startLocalWorker({
      redis: { url: "redis://127.0.0.1:1", auth: undefined },
      prefix: uniqueName("lw"),
      concurrency: 1,
      process: async () => {},
      onEvent: (event) => events.push(event),
    });
    const drained = worker.drained().then(
      () => "drained",
      (error: Error) => error.message,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));

    const started = Date.now();
    await worker.close();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await drained).toMatch(/closed before the queue drained/);
    expect(events.some((event) => event.type === "error")).toBe(true);
  });

  it("runs tasks enqueued earlier by another queue instance on a worker started later", async () => {
    const prefix = uniqueName("lw");
    prefixes.push(prefix);
    const producer: TaskQueue = createLocalTaskQueue({
      connection: bullmqConnection(settings, "producer"),
      prefix,
      attempts: 3,
    });
    await producer.enqueue([copy("2020-06-01"), copy("2020-06-02", "events")]);
    await producer.close();

    const seen: string[] = [];
    const events: LocalWorkerEvent[] = [];
    const worker = startWorker(prefix, async (task) => void seen.push(`${task.table} ${task.day}`), events);
    await worker.drained();
    expect(seen.sort()).toEqual(["events 2020-06-02", "orders 2020-06-01"]);
  });
});
