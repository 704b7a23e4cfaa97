import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DayDeleter } from "../../../ports/day-deleter";
import { RATE_CAP_CATCH_UP_MS } from "../../../ports/rate-cap";
import { createMemoryRateCap } from "../../../testing/fakes/memory-rate-cap";
import { cleanTask, createMemoryFixture, type MemoryFixture } from "../../../testing/memory-fixture";
import { cleanDay } from "./clean-day";

// The limits a cleanup task runs under: the retention floor, its window, the table's rate cap.
// The fixture's "today" is 2026-06-01 (UTC).

let fx: MemoryFixture;
beforeEach(async () => {
  fx = await createMemoryFixture();
});
afterEach(async () => {
  await fx.close();
});

/** A clock the fixture's sleeps move forward, starting at the fixture's now. */
function movingClock() {
  let now = Date.parse("2026-06-01T12:00:00Z");
  return {
    now: () => now,
    clock: () => new Date(now),
    sleep: async (ms: number) => {
      now += ms;
    },
  };
}

describe("the retention floor", () => {
  it("refuses a day younger than MIN_RETENTION_DAYS, whatever the task says, and deletes nothing", async () => {
    await fx.orders(["2026-05-20"], 3);
    const task = cleanTask("orders", "2026-05-20");
    await expect(cleanDay(fx.cleanupDeps(), { ...task, minRetentionDays: 0 })).rejects.toMatchObject({
      reason: "retention-floor",
      message: expect.stringMatching(/12 days old, younger than the retention floor of 30 days/),
    });
    expect(fx.ids("orders", "2026-05-20")).toHaveLength(3);
    expect(await fx.state.read({ table: "orders", day: "2026-05-20" })).toBeUndefined();
  });

  it("takes a task's own floor when it is higher, and lets an old enough day through", async () => {
    await fx.orders(["2026-03-01", "2025-01-01"], 2);
    await expect(
      cleanDay(fx.cleanupDeps(), { ...cleanTask("orders", "2026-03-01"), minRetentionDays: 100 }),
    ).rejects.toMatchObject({ reason: "retention-floor" });
    expect(fx.ids("orders", "2026-03-01")).toHaveLength(2);
    const report = await cleanDay(fx.cleanupDeps(), {
      ...cleanTask("orders", "2025-01-01"),
      minRetentionDays: 100,
    });
    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 2 });
  });
});

describe("the cleanup window", () => {
  it("defers a task whose window has closed: nothing deleted, no state, not an error", async () => {
    await fx.orders(["2024-01-01"], 4);
    const closed = { ...cleanTask("orders", "2024-01-01"), windowEnd: "2026-06-01T11:59:00.000Z" };

    const report = await cleanDay(fx.cleanupDeps(), closed);

    expect(report).toMatchObject({ outcome: "deferred", rowsDeleted: 0, chunks: 0 });
    expect(fx.ids("orders", "2024-01-01")).toHaveLength(4);
    expect(await fx.state.read({ table: "orders", day: "2024-01-01" })).toBeUndefined();
  });

  it("stops a day half way when the window closes, and the next window finishes it exactly", async () => {
    await fx.orders(["2024-01-01", "2024-01-02"], 5);
    const time = movingClock();
    // A minute's pause between chunks: the third chunk would start after the window's end.
    const deps = fx.cleanupDeps({
      clock: time.clock,
      sleep: time.sleep,
      settings: { chunkRows: 2, pauseMs: 60_000 },
    });
    const task = {
      ...cleanTask("orders", "2024-01-01"),
      windowEnd: new Date(time.now() + 90_000).toISOString(),
    };

    const first = await cleanDay(deps, task);

    expect(first).toMatchObject({ outcome: "deferred", rowsDeleted: 4, chunks: 2 });
    expect(fx.ids("orders", "2024-01-01")).toHaveLength(1);
    expect(await fx.state.read({ table: "orders", day: "2024-01-01" })).toMatchObject({
      status: "deleting",
      chunksDone: 2,
      rowsDeleted: 4,
    });
    expect(await fx.state.cleanedDays("orders")).toEqual([]);

    const next = { ...task, windowEnd: new Date(time.now() + 3_600_000).toISOString() };
    const second = await cleanDay(deps, next);

    expect(second).toMatchObject({ outcome: "cleaned", rowsDeleted: 5, chunks: 1, resumed: true });
    expect(fx.ids("orders", "2024-01-01")).toEqual([]);
    expect(fx.ids("orders", "2024-01-02")).toHaveLength(5);
    expect(await fx.state.cleanedDays("orders")).toEqual(["2024-01-01"]);
  });
});

describe("the table's rate cap", () => {
  it("deletes in chunks of at most 0.4 s of rows, spaced so that no second holds more than 1.5x the cap", async () => {
    await fx.orders(["2024-01-01"], 40);
    const time = movingClock();
    const deleted: { at: number; rows: number }[] = [];
    const deleter: DayDeleter = {
      ...fx.deleter,
      async deleteChunk(...args) {
        const outcome = await fx.deleter.deleteChunk(...args);
        if (outcome.kind === "deleted") deleted.push({ at: time.now(), rows: outcome.rows });
        return outcome;
      },
    };
    const deps = fx.cleanupDeps({
      clock: time.clock,
      sleep: time.sleep,
      deleter,
      rateCap: createMemoryRateCap(time.now),
    });

    const report = await cleanDay(deps, { ...cleanTask("orders", "2024-01-01"), maxRowsPerSecond: 8 });

    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 40 });
    expect(Math.max(...deleted.map((d) => d.rows))).toBeLessThanOrEqual(3);
    const span = (deleted.at(-1)?.at ?? 0) - (deleted[0]?.at ?? 0);
    // 40 rows at 8 a second in chunks of 3: the last chunk's turn is 4.875 s after the first's (its own
    // row takes the rest), and it may start at most the catch-up allowance early.
    expect(span).toBeGreaterThanOrEqual(4_875 - RATE_CAP_CATCH_UP_MS);
    for (const { at } of deleted) {
      const inSecond = deleted
        .filter((d) => d.at >= at && d.at < at + 1000)
        .reduce((sum, d) => sum + d.rows, 0);
      expect(inSecond).toBeLessThanOrEqual(8 * 1.5);
    }
    expect(report.waitedByReason.rateCap).toBeGreaterThan(0);
  });
});
