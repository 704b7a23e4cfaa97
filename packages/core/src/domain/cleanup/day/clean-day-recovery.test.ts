import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { failAfter, refusal } from "../../../testing/day-deleter-faults";
import { cleanTask, createMemoryFixture, event, type MemoryFixture } from "../../../testing/memory-fixture";
import { cleanDay } from "./clean-day";

// cleanDay after a crash, after Redis lost its data, and re-copying a changed day, on the
// in-memory fakes (clean-day-resume, redis-loss and clean-day-recopy.mysql.test.ts on MariaDB and Redis).

let fx: MemoryFixture;
beforeEach(async () => {
  fx = await createMemoryFixture();
});
afterEach(async () => {
  await fx.close();
});

const settings = { chunkRows: 2 };
const DAY = "2024-04-01";

describe("cleanDay resuming after a kill", () => {
  it("deletes exactly the migrated rows on the retry, finding the chunk that committed before the kill gone", async () => {
    await fx.orders([DAY, "2024-04-02"], 10, { copied: [DAY] });
    const untouched = fx.ids("orders", "2024-04-02");
    // Dies after its third chunk committed, before recording it.
    const killed = cleanDay(
      fx.cleanupDeps({ deleter: failAfter(fx.deleter, 3), settings }),
      cleanTask("orders", DAY),
    );
    await expect(killed).rejects.toThrow("killed");
    expect(fx.ids("orders", DAY)).toHaveLength(4);
    expect(await fx.state.read({ table: "orders", day: DAY })).toMatchObject({
      status: "deleting",
      chunksDone: 2,
    });

    // The day now holds 4 of its 10 copied rows: a retry that verified again would refuse it.
    const report = await cleanDay(fx.cleanupDeps({ settings }), cleanTask("orders", DAY));

    expect(report).toMatchObject({ outcome: "cleaned", resumed: true, rowsDeleted: 8, rowsFoundGone: 2 });
    expect(fx.ids("orders", DAY)).toEqual([]);
    expect(fx.ids("orders", "2024-04-02")).toEqual(untouched);
    expect(await fx.state.cleanedDays("orders")).toEqual([DAY]);
  });

  it("stops, resuming, at a chunk whose rows changed while it was away, and deletes none of them", async () => {
    await fx.orders([DAY], 4);
    const killed = failAfter(fx.deleter, 1, "before");
    await expect(
      cleanDay(fx.cleanupDeps({ deleter: killed, settings }), cleanTask("orders", DAY)),
    ).rejects.toThrow("killed");
    fx.source.updateRows(
      "orders",
      (row) => row[0] === "4",
      (row) => [row[0], row[1], "updated", null, null],
    );

    const error = await refusal(cleanDay(fx.cleanupDeps({ settings }), cleanTask("orders", DAY)));
    expect(error.message).toMatch(/rows changed since verification: planned 2 rows .* found 2/);
    expect(fx.ids("orders")).toEqual(["3", "4"]);
  });

  it("deletes nothing more once another task took the day's lease during a pause", async () => {
    await fx.orders([DAY], 4);
    const at = { table: "orders", day: DAY };
    const deps = fx.cleanupDeps({
      settings: { chunkRows: 2, pauseMs: 60_000 },
      // The pause outlasts the lease (forgotten here with the rest of the state): a second task claims the day.
      sleep: async () => {
        fx.state.clear();
        expect(await fx.state.claim(at, "second-task", 60_000)).toBe(true);
      },
    });
    await expect(cleanDay(deps, cleanTask("orders", DAY))).rejects.toThrow(/lost the cleanup lease/);
    expect(fx.ids("orders", DAY)).toHaveLength(2);
  });
});

describe("cleanDay when Redis came back empty", () => {
  /** A day of 5 rows, copied; its cleanup deletes 2 of 3 chunks and dies; then Redis forgets everything. */
  async function partCleanedDay(): Promise<void> {
    await fx.orders([DAY], 5);
    const killed = cleanDay(
      fx.cleanupDeps({ deleter: failAfter(fx.deleter, 2), settings }),
      cleanTask("orders", DAY),
    );
    await expect(killed).rejects.toThrow("killed");
    expect(fx.ids("orders", DAY)).toHaveLength(1);
    fx.ledger.clear();
    fx.state.clear();
  }

  it("takes the copy record and the started plan from the durable record, and finishes the day", async () => {
    await partCleanedDay();

    const report = await cleanDay(fx.cleanupDeps({ settings }), cleanTask("orders", DAY));

    expect(report).toMatchObject({ outcome: "cleaned", rowsFoundGone: 4 });
    expect(fx.ids("orders", DAY)).toEqual([]);
    expect(await fx.ledger.isMigrated("orders", DAY)).toBe(true);
    expect(await fx.warehouse.countRows({ dataset: "archive", table: "orders" })).toBe(5);
    expect(fx.logged(/^cleanup: resuming a day whose cleanup had started/)).toHaveLength(1);
    // The record and the day's membership are asked at once; the durable record is read once.
    expect(fx.logged(/^restored a day's copy record/)).toHaveLength(1);
    expect((await cleanDay(fx.cleanupDeps({ settings }), cleanTask("orders", DAY))).outcome).toBe(
      "already-done",
    );
  });

  it("converges when the copy task runs again first: it writes the record back instead of copying what is left", async () => {
    await partCleanedDay();
    const record = await fx.copy("orders", DAY);
    expect(record.figures.rows).toBe(5);
    expect(await fx.warehouse.countRows({ dataset: "archive", table: "orders" })).toBe(5);

    expect((await cleanDay(fx.cleanupDeps({ settings }), cleanTask("orders", DAY))).outcome).toBe("cleaned");
    expect(fx.ids("orders")).toEqual([]);
  });
});

describe("cleanDay with recopy_changed_days", () => {
  it("copies a changed day again, then cleans what it verified against the new copy", async () => {
    await fx.orders([DAY], 3);
    fx.source.updateRows(
      "orders",
      (row) => row[0] === "2",
      (row) => [row[0], row[1], "edited", null, null],
    );
    fx.source.insertRows("orders", [event(4, `${DAY} 20:00:00`)]);
    expect((await refusal(cleanDay(fx.cleanupDeps(), cleanTask("orders", DAY)))).reason).toBe("changed");

    const task = { ...cleanTask("orders", DAY), recopyChangedDays: true };
    const report = await cleanDay(fx.cleanupDeps(), task);

    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 4 });
    expect(fx.ids("orders")).toEqual([]);
    expect((await fx.ledger.copiedDay("orders", DAY))?.figures.rows).toBe(4);
    expect(await fx.warehouse.countRows({ dataset: "archive", table: "orders" })).toBe(4);
    expect(fx.logged(/copying a changed day again/)).toHaveLength(1);
  });

  it("never re-copies over a row that left the source: the day is refused and kept", async () => {
    await fx.orders([DAY], 3);
    fx.source.deleteRows("orders", (row) => row[0] === "1");
    fx.source.insertRows("orders", [event(9, `${DAY} 21:00:00`)]);

    const task = { ...cleanTask("orders", DAY), recopyChangedDays: true };
    expect((await refusal(cleanDay(fx.cleanupDeps(), task))).reason).toBe("changed");
    expect(fx.ids("orders")).toEqual(["2", "3", "9"]);
    expect(await fx.warehouse.countRows({ dataset: "archive", table: "orders" })).toBe(3);
  });
});
