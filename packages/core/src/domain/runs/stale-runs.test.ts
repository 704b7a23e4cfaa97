import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMemoryFixture, type MemoryFixture } from "../../testing/memory-fixture";
import type { CleanupMessage } from "../messages/cleanup-message";
import type { MigrationMessage } from "../messages/migration-message";
import { parseMessage } from "../messages/parse-message";
import type { RunDeps } from "./run-deps";
import { isStale } from "./stale-runs";
import { startCleanupRun, startMigrationRuns } from "./start-runs";
import { recordTaskEnd } from "./task-end";

const HOUR = 3_600_000;

describe("isStale", () => {
  const now = new Date("2024-06-02T12:00:00.000Z");
  const news = (ago: number) => ({ lastNewsAt: new Date(now.getTime() - ago).toISOString() });

  it("is stale once its last news is older than the window, and not at the window itself", () => {
    expect(isStale(news(12 * HOUR + 1), now, 12 * HOUR)).toBe(true);
    expect(isStale(news(12 * HOUR), now, 12 * HOUR)).toBe(false);
    expect(isStale(news(HOUR), now, 12 * HOUR)).toBe(false);
  });

  it("is never stale under an unlimited window, nor with an instant it cannot read", () => {
    expect(isStale(news(365 * 24 * HOUR), now, Number.POSITIVE_INFINITY)).toBe(false);
    expect(isStale({ lastNewsAt: "yesterday" }, now, HOUR)).toBe(false);
  });
});

// The next run of a table and mode ends an earlier one whose tasks' ends were lost, on the in-memory
// fakes and DuckDB, the clock moved by hand. run-history.e2e.test.ts in packages/local does it on Redis.
describe("a run whose tasks never report", () => {
  let fx: MemoryFixture;
  let now: Date;
  let ids: number;
  let runs: RunDeps;
  const window = 12 * HOUR;
  beforeEach(async () => {
    fx = await createMemoryFixture();
    now = new Date("2024-06-01T00:00:00.000Z");
    ids = 0;
    runs = fx.runDeps({ newRunId: () => `run-${++ids}`, clock: () => now, staleAfterMs: window });
  });
  afterEach(async () => {
    await fx.close();
  });

  const parse = <T>(fields: object) => parseMessage(fields).message as T;
  const cleanup = () =>
    parse<CleanupMessage>({ clean_table: "orders", filter_column: "created_at", dry_run: false });
  const history = () => fx.warehouse.runs({ dataset: "archive" });
  /** Takes every queued task off the queue, as a worker that dies before reporting does; returns them. */
  const lose = () => {
    const lost = [];
    for (let task = fx.queue.take(); task; task = fx.queue.take()) {
      fx.queue.finish(task);
      lost.push(task);
    }
    return lost;
  };
  const later = (ms: number) => {
    now = new Date(now.getTime() + ms);
  };

  it("is ended as failed by the next run of its table and mode, once stale", async () => {
    await fx.orders(["2024-05-01", "2024-05-02"], 2);
    await startCleanupRun(fx.cleanupDeps(), runs, cleanup());
    const [lost] = lose();
    later(window + 1);
    await startCleanupRun(fx.cleanupDeps(), runs, cleanup());

    expect(await history()).toEqual([
      expect.objectContaining({
        id: "run-1",
        mode: "cleanup",
        queued: 2,
        cleaned: 0,
        failed: 2,
        startedAt: "2024-06-01T00:00:00.000Z",
        endedAt: now.toISOString(),
        result: "failed",
      }),
    ]);
    expect(fx.logged(/heard nothing/)).toMatchObject([
      { runId: "run-1", table: "orders", unended: 2, lastNewsAt: "2024-06-01T00:00:00.000Z" },
    ]);
    expect(fx.logged(/^run ended$/)).toMatchObject([{ runId: "run-1", result: "failed", failed: 2 }]);

    // A lost task that reports after all counts nothing: the run is finished.
    if (lost) await recordTaskEnd(runs, lost, { kind: "failed", error: new Error("late") });
    expect(await history()).toHaveLength(1);
    expect(fx.logged(/^run ended$/)).toHaveLength(1);
  });

  it("is left open while its last news is within the window, and when another mode begins", async () => {
    await fx.orders(["2024-05-01", "2024-05-02"], 2);
    await startCleanupRun(fx.cleanupDeps(), runs, cleanup());
    lose();
    later(window);
    await startCleanupRun(fx.cleanupDeps(), runs, cleanup());
    lose();
    later(window + 1);
    // The first run is stale by now, but a migration ends only migrations.
    const migration = parse<MigrationMessage>({
      years_to_migrate: 1,
      months_to_migrate: 0,
      source_tables: ["orders"],
      destination_tables: ["orders"],
      filter_columns: ["created_at"],
    });
    await startMigrationRuns(fx.migrationDeps(), runs, migration);

    expect((await history()).filter((run) => run.mode === "cleanup")).toEqual([]);
    const open = await runs.history.openRuns("orders", "cleanup");
    expect(open.map((run) => run.start.id).sort()).toEqual(["run-1", "run-2"]);
  });

  it("is never ended without a window", async () => {
    await fx.orders(["2024-05-01"], 2);
    const { staleAfterMs: _, ...withoutWindow } = runs;
    await startCleanupRun(fx.cleanupDeps(), withoutWindow, cleanup());
    lose();
    later(365 * 24 * HOUR);
    await startCleanupRun(fx.cleanupDeps(), withoutWindow, cleanup());
    expect(await history()).toEqual([]);
  });
});
