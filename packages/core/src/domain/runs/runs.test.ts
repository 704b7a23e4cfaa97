import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TransientError } from "../../errors";
import type { TaskPayload } from "../../model/task";
import {
  createMemoryFixture,
  event,
  eventsSchema,
  type MemoryFixture,
  rowsOnDays,
} from "../../testing/memory-fixture";
import { cleanDay } from "../cleanup/day/clean-day";
import { copyDay } from "../copy/copy-day";
import type { CleanupMessage } from "../messages/cleanup-message";
import type { MigrationMessage } from "../messages/migration-message";
import { parseMessage } from "../messages/parse-message";
import type { RunDeps } from "./run-deps";
import { startCleanupRun, startMigrationRuns } from "./start-runs";
import { recordTaskEnd, type TaskEnding } from "./task-end";

// Runs on the in-memory fakes and an in-memory DuckDB warehouse: each message leaves one row per
// table in _archiver_runs once its last task ends, as the task runners report ends (recordTaskEnd).
// run-history.e2e.test.ts in packages/local runs the same through the built CLI on MariaDB and Redis.

let fx: MemoryFixture;
let runs: RunDeps;
let ids: number;
beforeEach(async () => {
  fx = await createMemoryFixture();
  ids = 0;
  runs = fx.runDeps({ newRunId: () => `run-${++ids}` });
});
afterEach(async () => {
  await fx.close();
});

const parse = <T>(fields: object) => parseMessage(fields).message as T;
const migration = (extra = {}) =>
  parse<MigrationMessage>({
    years_to_migrate: 1,
    months_to_migrate: 0,
    source_tables: ["orders"],
    destination_tables: ["orders"],
    filter_columns: ["created_at"],
    ...extra,
  });
const cleanup = (extra = {}) =>
  parse<CleanupMessage>({ clean_table: "orders", filter_column: "created_at", dry_run: false, ...extra });
const history = () => fx.warehouse.runs({ dataset: "archive" });

/** Runs every queued task as a runner does, and reports each end; `fail` makes a task fail for good. */
async function work(fail: (task: TaskPayload) => Error | undefined = () => undefined): Promise<TaskEnding[]> {
  const endings: TaskEnding[] = [];
  for (let task = fx.queue.take(); task; task = fx.queue.take()) {
    let ending: TaskEnding;
    try {
      const failure = fail(task);
      if (failure) throw failure;
      ending =
        task.kind === "copy"
          ? { kind: "copied", record: await copyDay(fx.copyDeps(), task) }
          : { kind: "cleaned", report: await cleanDay(fx.cleanupDeps(), task) };
    } catch (error) {
      ending = { kind: "failed", error };
    }
    fx.queue.finish(task);
    await recordTaskEnd(runs, task, ending);
    endings.push(ending);
  }
  return endings;
}

describe("run history", () => {
  it("leaves one row for a migration run once its last copy ends, and logs it ended", async () => {
    fx.source.createTable(eventsSchema("orders"), rowsOnDays(["2024-01-01", "2024-01-02"], 3));
    const [plan] = await startMigrationRuns(fx.migrationDeps(), runs, migration({ policy: "orders" }));
    expect(plan).toMatchObject({ run: "run-1", added: 2 });
    expect(fx.queue.tasks().map((task) => task.run)).toEqual(["run-1", "run-1"]);
    expect(await history()).toEqual([]);
    await work();
    expect(await history()).toEqual([
      expect.objectContaining({
        id: "run-1",
        table: "orders",
        mode: "migration",
        policy: "orders",
        dataset: "archive",
        queued: 2,
        copied: 2,
        rows: 6,
        refused: 0,
        failed: 0,
        result: "succeeded",
      }),
    ]);
    expect(fx.logged(/^run ended$/)).toEqual([
      expect.objectContaining({
        runId: "run-1",
        table: "orders",
        mode: "migration",
        result: "succeeded",
        rows: 6,
      }),
    ]);
  });

  it("ends a migration run that queues nothing at once", async () => {
    fx.source.createTable(eventsSchema("orders"), []);
    await startMigrationRuns(fx.migrationDeps(), runs, migration());
    expect(await history()).toMatchObject([{ id: "run-1", queued: 0, copied: 0, result: "succeeded" }]);
  });

  it("leaves a cleanup run partial when a day is refused, its other days cleaned", async () => {
    await fx.orders(["2024-05-01", "2024-05-02"], 3);
    // A row the copy never saw: the day's figures disagree, so its cleanup is refused.
    fx.source.insertRows("orders", [event(999, "2024-05-02 10:00:00")]);
    const summary = await startCleanupRun(fx.cleanupDeps(), runs, cleanup({ policy: "orders" }));
    expect(summary.run).toBe("run-1");
    await work();
    expect(await history()).toEqual([
      expect.objectContaining({
        mode: "cleanup",
        queued: 2,
        cleaned: 1,
        refused: 1,
        failed: 0,
        rows: 3,
        dryRun: false,
        result: "partial",
      }),
    ]);
    expect(fx.logged(/^run ended$/)).toMatchObject([{ result: "partial", refused: 1, policy: "orders" }]);
  });

  it("fails a run whose task fails for good, and counts a task reported twice once", async () => {
    await fx.orders(["2024-05-01", "2024-05-02"], 2);
    await startCleanupRun(fx.cleanupDeps(), runs, cleanup());
    const [first, second] = fx.queue.tasks();
    // The last attempt of the first day's task fails on a transient error: it failed for good.
    await work((task) => (task.day === first?.day ? new TransientError("MySQL unavailable") : undefined));
    // A second delivery of the second day's task: already done, and counted already.
    if (second?.kind === "clean")
      await recordTaskEnd(runs, second, {
        kind: "cleaned",
        report: await cleanDay(fx.cleanupDeps(), second),
      });
    expect(await history()).toEqual([
      expect.objectContaining({ queued: 2, cleaned: 1, failed: 1, rows: 2, result: "failed" }),
    ]);
    expect(fx.logged(/^run ended$/)).toHaveLength(1);
  });

  it("does not wait for a task an earlier run queued, which ends that run", async () => {
    await fx.orders(["2024-05-01", "2024-05-02"], 2);
    await startCleanupRun(fx.cleanupDeps(), runs, cleanup());
    // A second cleanup while the first one's tasks are still queued: the queue keeps them, as the first run's.
    const second = await startCleanupRun(fx.cleanupDeps(), runs, cleanup());
    expect(second).toMatchObject({ run: "run-2", enqueued: 0, alreadyQueued: 2 });
    expect(await history()).toMatchObject([{ id: "run-2", queued: 0, result: "succeeded" }]);
    await work();
    expect((await history()).map((run) => [run.id, run.queued, run.cleaned])).toEqual([
      ["run-1", 2, 2],
      ["run-2", 0, 0],
    ]);
  });

  it("ends a dry run at once, with the days it verified and refused", async () => {
    await fx.orders(["2024-05-01", "2024-05-02", "2024-05-03"], 2);
    fx.source.insertRows("orders", [event(999, "2024-05-03 10:00:00")]);
    await startCleanupRun(fx.cleanupDeps(), runs, cleanup({ dry_run: true }));
    expect(fx.queue.tasks()).toEqual([]);
    expect(await history()).toMatchObject([
      { dryRun: true, queued: 0, cleaned: 2, refused: 1, result: "partial" },
    ]);
  });
});
