import { describe, expect, it } from "vitest";
import { NO_COUNTS } from "../../model/run";
import { type CleanDayTask, taskKey } from "../../model/task";
import { createMemoryRunHistory } from "../../testing/fakes/memory-run-history";
import { createMemoryTaskQueue } from "../../testing/fakes/memory-task-queue";
import { runAwareQueue } from "./run-aware-queue";

const task = (day: string, run?: string): CleanDayTask => ({
  kind: "clean",
  table: "orders",
  filterColumn: "created_at",
  day,
  ...(run === undefined ? {} : { run }),
});
const start = { id: "r1", table: "orders", mode: "cleanup", dataset: "archive", startedAt: "t0" } as const;

describe("runAwareQueue", () => {
  it("makes a run wait for the tasks one of its tasks queues (a chunked partition's days)", async () => {
    const history = createMemoryRunHistory();
    const inner = createMemoryTaskQueue();
    const queue = runAwareQueue(inner, history);
    await history.begin(start, [taskKey(task("2024-01-01"))], NO_COUNTS, "t1");
    // The partition's task queues its other day, carrying the run, then ends.
    await queue.enqueue([task("2024-01-02", "r1")]);
    expect(inner.tasks()).toEqual([task("2024-01-02", "r1")]);
    const end = (day: string) =>
      history.taskEnded("r1", { task: taskKey(task(day)), endedAt: "t2", counts: {} });
    expect(await end("2024-01-01")).toBeUndefined();
    expect(await end("2024-01-02")).toMatchObject({ id: "r1", queued: 2 });
  });

  it("does not make a run wait for a task the queue holds for another run", async () => {
    const history = createMemoryRunHistory();
    const inner = createMemoryTaskQueue();
    await inner.enqueue([task("2024-01-02", "earlier")]);
    await runAwareQueue(inner, history).enqueue([task("2024-01-02", "r1")]);
    // Nothing of r1 is left to end once it begins with no task of its own.
    expect(await history.begin(start, [], NO_COUNTS, "t1")).toMatchObject({ id: "r1", queued: 0 });
  });
});
