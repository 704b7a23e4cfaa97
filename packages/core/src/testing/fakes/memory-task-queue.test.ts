import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../../errors";
import type { CopyDayTask, TaskPayload } from "../../model/task";
import { describeTaskQueueContract } from "../task-queue-contract";
import { createMemoryTaskQueue } from "./memory-task-queue";

describeTaskQueueContract("in memory", async () => {
  const queue = createMemoryTaskQueue();
  return { queue, cleanup: () => queue.close() };
});

const copy = (day: string): CopyDayTask => ({
  kind: "copy",
  table: "orders",
  destination: "archive.orders",
  filterColumn: "created_at",
  day,
});

describe("createMemoryTaskQueue", () => {
  it("counts a taken task until it is finished, and queues its day again only then", async () => {
    const queue = createMemoryTaskQueue();
    await queue.enqueue([copy("2020-01-01"), copy("2020-01-02")]);

    const task = queue.take();
    expect(task).toEqual(copy("2020-01-01"));
    expect(await queue.count()).toBe(2);
    expect(await queue.enqueue([copy("2020-01-01")])).toEqual({ added: 0, alreadyQueued: 1 });

    queue.finish(task as TaskPayload);
    expect(await queue.count()).toBe(1);
    expect(queue.tasks()).toEqual([copy("2020-01-02")]);
    expect(await queue.enqueue([copy("2020-01-01")])).toEqual({ added: 1, alreadyQueued: 0 });
  });

  it("runs every task, those queued while running too, and ends a failing one", async () => {
    const queue = createMemoryTaskQueue();
    await queue.enqueue([copy("2020-01-01")]);
    const ran = await queue.runAll(async (task) => {
      if (task.day === "2020-01-01") await queue.enqueue([copy("2020-01-02")]);
    });
    expect(ran.map((task) => task.day)).toEqual(["2020-01-01", "2020-01-02"]);
    expect(await queue.count()).toBe(0);

    await queue.enqueue([copy("2020-01-03")]);
    await expect(queue.runAll(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await queue.count()).toBe(0);
  });

  it("rejects a malformed task before queueing any", async () => {
    const queue = createMemoryTaskQueue();
    const bad = { ...copy("2020-01-02"), table: "orders; DROP TABLE x" };
    await expect(queue.enqueue([copy("2020-01-01"), bad])).rejects.toBeInstanceOf(InvalidInputError);
    expect(await queue.count()).toBe(0);
  });
});
