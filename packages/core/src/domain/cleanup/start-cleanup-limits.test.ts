import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMemoryFixture, type MemoryFixture } from "../../testing/memory-fixture";
import { parseMessage } from "../messages/parse-message";
import { startCleanup } from "./start-cleanup";

// A cleanup message's limits: its window, its rate cap and the retention floor. The fixture's now is
// 2026-06-01T12:00:00Z, a Monday, 14:00 in Paris.

let fx: MemoryFixture;
beforeEach(async () => {
  fx = await createMemoryFixture();
  await fx.orders(["2024-01-01", "2024-01-02", "2026-05-25"], 3);
});
afterEach(async () => {
  await fx.close();
});

function cleanup(fields: Record<string, unknown>) {
  const parsed = parseMessage({
    clean_table: "orders",
    filter_column: "created_at",
    dry_run: false,
    ...fields,
  });
  if (parsed.mode !== "cleanup") throw new Error("expected a cleanup message");
  return parsed.message;
}

describe("startCleanup under limits", () => {
  it("queues nothing outside its window, and says the days wait for the next one", async () => {
    const summary = await startCleanup(
      fx.cleanupDeps(),
      cleanup({ cleanup_window: "22:00-05:00", time_zone: "Europe/Paris" }),
    );

    expect(summary).toMatchObject({ enqueued: 0, deferred: 2 });
    expect(fx.queue.tasks()).toEqual([]);
    expect(fx.logged(/^cleanup deferred: its window is closed/)).toHaveLength(1);
  });

  it("inside its window, gives every task the window's end, the cap and the floor", async () => {
    const summary = await startCleanup(
      fx.cleanupDeps(),
      cleanup({ cleanup_window: "13:00-15:30", time_zone: "Europe/Paris", max_rows_per_second: 500 }),
    );

    expect(summary).toMatchObject({ enqueued: 2, deferred: 0 });
    expect(
      fx.queue
        .tasks()
        .map((task) => task.kind === "clean" && [task.day, task.windowEnd, task.maxRowsPerSecond]),
    ).toEqual([
      ["2024-01-01", "2026-06-01T13:30:00.000Z", 500],
      ["2024-01-02", "2026-06-01T13:30:00.000Z", 500],
    ]);
  });

  it("stops at a hand-published window_end, and defers when it has passed", async () => {
    await startCleanup(fx.cleanupDeps(), cleanup({ window_end: "2026-06-01T12:45:00" }));
    expect(fx.queue.tasks().map((task) => task.kind === "clean" && task.windowEnd)).toEqual([
      "2026-06-01T12:45:00.000Z",
      "2026-06-01T12:45:00.000Z",
    ]);
    const late = await startCleanup(fx.cleanupDeps(), cleanup({ window_end: "2026-06-01T11:00:00" }));
    expect(late).toMatchObject({ deferred: 2 });
  });

  it("refuses days younger than the floor in the dry run and the real run alike, queueing none of them", async () => {
    for (const dryRun of [true, false]) {
      const summary = await startCleanup(fx.cleanupDeps(), cleanup({ dry_run: dryRun }));
      expect(summary.refusals).toEqual([
        expect.objectContaining({
          day: "2026-05-25",
          refusal: "retention-floor",
          reason: expect.stringMatching(/7 days old/),
        }),
      ]);
    }
    expect(fx.queue.tasks().map((task) => task.day)).toEqual(["2024-01-01", "2024-01-02"]);
    const raised = await startCleanup(fx.cleanupDeps(), cleanup({ dry_run: true, min_retention_days: 882 }));
    expect(raised.refusals.map((refusal) => refusal.day)).toEqual(["2024-01-02", "2026-05-25"]);
  });
});
