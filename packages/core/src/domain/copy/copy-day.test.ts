import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidInputError, RefusalError } from "../../errors";
import type { Row } from "../../model/table-schema";
import type { DayStream, SourceDatabase } from "../../ports/source-database";
import {
  copyTask,
  createMemoryFixture,
  event,
  eventsAt,
  eventsSchema,
  type MemoryFixture,
} from "../../testing/memory-fixture";
import { copyDay, recopyDay } from "./copy-day";

// copyDay on the in-memory source and ledger, into an in-memory DuckDB warehouse.
// copy-day.mysql.test.ts runs it against MariaDB and Redis, and copy-day-types.mysql.test.ts every type.

let fx: MemoryFixture;
beforeEach(async () => {
  fx = await createMemoryFixture();
});
afterEach(async () => {
  await fx.close();
});

const archive = (table: string) => ({ dataset: "archive", table });
const DAY = "2024-03-10";

/** `events` with three rows on DAY, one on each neighbouring day right at its edge. */
function threeRowDay(table = "events"): void {
  fx.source.createTable(eventsSchema(table), [
    event(1, "2024-03-09 23:59:59.999999"),
    event(2, `${DAY} 00:00:00`),
    event(3, `${DAY} 12:00:00`),
    ["4", `${DAY} 23:59:59.999999`, "zero shipped", "0000-00-00", null],
    event(5, "2024-03-11 00:00:00"),
  ]);
}

/** The source with every stream's batches passed through `change`. */
function streaming(
  change: (batches: AsyncIterable<readonly Row[]>) => AsyncIterable<readonly Row[]>,
): SourceDatabase {
  return {
    ...fx.source,
    streamDay(...args): DayStream {
      const stream = fx.source.streamDay(...args);
      return { batches: change(stream.batches), stats: () => stream.stats() };
    },
  };
}

describe("copyDay", () => {
  it("copies exactly the day's rows and records their figures, durably first, then in the ledger", async () => {
    threeRowDay();
    const record = await copyDay(fx.copyDeps(), copyTask("events", DAY));

    const source = await fx.source.dayFigures(eventsSchema("events"), "created_at", DAY);
    expect(record).toMatchObject({
      day: DAY,
      destination: "events",
      filterColumn: "created_at",
      figures: {
        rows: 3,
        fingerprint: source.fingerprint,
        key: { column: "id", count: 3, sum: "9", min: "2", max: "4" },
      },
      zeroDates: 1,
      copiedAt: "2026-06-01T12:00:00.000Z",
    });
    expect(await fx.warehouse.countRows(archive("events"))).toBe(3);
    expect(await fx.ledger.migratedDays("events")).toEqual([DAY]);
    expect(await fx.ledger.copiedDay("events", DAY)).toEqual(record);
    expect((await fx.warehouse.dayRecord({ dataset: "archive" }, "events", DAY)).copy).toEqual(record);
    expect(fx.logged(/^copied day$/)).toMatchObject([{ table: "events", day: DAY, rows: 3, zeroDates: 1 }]);
  });

  it("copies a table without a single integer key by rows and content", async () => {
    fx.source.createTable(
      eventsSchema("plain", { keyed: false }),
      eventsAt([`${DAY} 01:00:00`, `${DAY} 02:00:00`]),
    );
    const record = await copyDay(fx.copyDeps(), copyTask("plain", DAY));
    expect(record.figures.rows).toBe(2);
    expect(record.figures.key).toBeUndefined();
    expect(record.figures.fingerprint).toMatch(/^[1-9]\d*$/);
  });

  it("copies an empty day as a migrated day of no rows", async () => {
    threeRowDay();
    const record = await copyDay(fx.copyDeps(), copyTask("events", "2024-03-01"));
    expect(record.figures).toMatchObject({ rows: 0, fingerprint: "0" });
    expect(await fx.ledger.isMigrated("events", "2024-03-01")).toBe(true);
  });

  it.each([
    ["today", copyTask("events", "2026-06-01"), "day"],
    ["a day after today", copyTask("events", "2026-07-01"), "day"],
    ["a missing table", copyTask("no_such_table", DAY), "table"],
    ["a bad table name", copyTask("x`; DROP TABLE y", DAY, "events"), "table"],
    ["a DATE filter column", { ...copyTask("events", DAY), filterColumn: "shipped" }, "filterColumn"],
    ["a TIMESTAMP filter column", { ...copyTask("events", DAY), filterColumn: "changed" }, "filterColumn"],
    ["a missing filter column", { ...copyTask("events", DAY), filterColumn: "nope" }, "filterColumn"],
    ["a bad destination", copyTask("events", DAY, "bad-name!"), "destination"],
    ["a destination in a project", copyTask("events", DAY, "p.d.t"), "destination"],
  ])("refuses %s before copying or recording anything", async (_case, task, field) => {
    threeRowDay();
    const error = await copyDay(fx.copyDeps(), task).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).field).toBe(field);
    expect(await fx.ledger.tables()).toEqual([]);
    expect(await fx.warehouse.hasTable(archive("events"))).toBe(false);
  });

  it("ignores a duplicate task for a migrated day, even when the source's rows are gone", async () => {
    threeRowDay();
    const first = await copyDay(fx.copyDeps(), copyTask("events", DAY));
    fx.source.deleteRows("events", () => true);

    expect(await copyDay(fx.copyDeps(), copyTask("events", DAY))).toEqual(first);
    expect(await fx.warehouse.countRows(archive("events"))).toBe(3);
    expect(fx.logged(/already migrated/)).toHaveLength(1);
  });

  it("restores a day's record from the durable record when the ledger lost it, and copies nothing", async () => {
    threeRowDay();
    const first = await copyDay(fx.copyDeps(), copyTask("events", DAY));
    fx.ledger.clear();
    fx.source.deleteRows("events", () => true);

    expect(await copyDay(fx.copyDeps(), copyTask("events", DAY))).toEqual(first);
    expect(await fx.ledger.copiedDay("events", DAY)).toEqual(first);
    expect(await fx.ledger.migratedDays("events")).toEqual([DAY]);
    expect(await fx.warehouse.countRows(archive("events"))).toBe(3);
    expect(fx.logged(/restored a day's copy record/)).toMatchObject([
      { severity: "WARNING", table: "events" },
    ]);
  });

  it("recovers a lost record from the dataset its task names, which a read without it does not look in", async () => {
    threeRowDay();
    const task = copyTask("events", DAY, "history.events");
    const first = await copyDay(fx.copyDeps(), task);
    fx.ledger.clear();
    fx.source.deleteRows("events", () => true);

    // Cleanup knows no destination: it looks in the default dataset, which holds no record of this day.
    expect(await fx.copyDeps().ledger.copiedDay("events", DAY)).toBeUndefined();
    expect(await copyDay(fx.copyDeps(), task)).toEqual(first);
    expect(await fx.ledger.copiedDay("events", DAY)).toEqual(first);
    expect(await fx.warehouse.countRows({ dataset: "history", table: "events" })).toBe(3);
  });

  it("records nothing when the copy dies half way, and the retry leaves each row once", async () => {
    const times = Array.from(
      { length: 250 },
      (_, i) => `${DAY} ${String(i % 24).padStart(2, "0")}:00:${String(i % 60).padStart(2, "0")}`,
    );
    fx.source.createTable(eventsSchema("events"), eventsAt(times));
    const dying = streaming(async function* (batches) {
      let seen = 0;
      for await (const batch of batches) {
        if (++seen === 2) throw new Error("process killed");
        yield batch;
      }
    });

    await expect(copyDay(fx.copyDeps({ source: dying }), copyTask("events", DAY))).rejects.toThrow("killed");
    expect(await fx.ledger.migratedDays("events")).toEqual([]);
    expect(await fx.warehouse.countRows(archive("events"))).toBe(0);
    expect(await fx.warehouse.dayRecord({ dataset: "archive" }, "events", DAY)).toEqual({});

    await copyDay(fx.copyDeps(), copyTask("events", DAY));
    expect(await fx.warehouse.countRows(archive("events"))).toBe(250);
    expect((await fx.ledger.copiedDay("events", DAY))?.figures.rows).toBe(250);
  });

  it("rests between batches at COPY_NICE_RATIO, in proportion to the time each took to arrive", async () => {
    const times = Array.from({ length: 250 }, (_, i) => `${DAY} ${String(i % 24).padStart(2, "0")}:00:00`);
    fx.source.createTable(eventsSchema("events"), eventsAt(times));
    const slow = streaming(async function* (batches) {
      for await (const batch of batches) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        yield batch;
      }
    });
    const rests: number[] = [];
    const asked: unknown[] = [];
    const watched: SourceDatabase = {
      ...slow,
      streamDay(...args) {
        asked.push(args[4]);
        return slow.streamDay(...args);
      },
    };
    const deps = fx.copyDeps({ source: watched, niceRatio: 3, sleep: async (ms) => void rests.push(ms) });
    await copyDay(deps, copyTask("events", DAY));
    // Paced: the source reads no further ahead than the rests let batches through.
    expect(asked).toEqual([{ paced: true }]);
    // Three batches of at most 100 rows, a rest after each (the last before the end of the stream:
    // the fingerprint the source computes next is work on the server too).
    expect(rests).toHaveLength(3);
    for (const ms of rests) expect(ms).toBeGreaterThanOrEqual(50);
    expect(await fx.warehouse.countRows(archive("events"))).toBe(250);
  });

  it("never records a day whose warehouse holds other than the rows read", async () => {
    threeRowDay();
    const lossy = streaming(async function* (batches) {
      for await (const batch of batches) yield batch.slice(1);
    });
    await expect(copyDay(fx.copyDeps({ source: lossy }), copyTask("events", DAY))).rejects.toBeInstanceOf(
      RefusalError,
    );
    expect(await fx.ledger.copiedDay("events", DAY)).toBeUndefined();
    expect(await fx.warehouse.dayRecord({ dataset: "archive" }, "events", DAY)).toEqual({});
  });
});

describe("recopyDay", () => {
  it("replaces the day's copy and its record when the source's rows changed", async () => {
    threeRowDay();
    const first = await copyDay(fx.copyDeps(), copyTask("events", DAY));
    fx.source.updateRows(
      "events",
      (row) => row[0] === "3",
      (row) => [row[0], row[1], "edited", null, null],
    );
    fx.source.insertRows("events", [event(6, `${DAY} 13:00:00`)]);

    const again = await recopyDay(fx.copyDeps(), copyTask("events", DAY));
    expect(again.figures.rows).toBe(4);
    expect(again.figures.fingerprint).not.toBe(first.figures.fingerprint);
    expect(await fx.ledger.copiedDay("events", DAY)).toEqual(again);
    expect(await fx.warehouse.countRows(archive("events"))).toBe(4);
  });

  it("refuses, changing nothing, when a row the warehouse holds has left the source", async () => {
    threeRowDay();
    const first = await copyDay(fx.copyDeps(), copyTask("events", DAY));
    fx.source.deleteRows("events", (row) => row[0] === "2");
    fx.source.insertRows("events", [event(7, `${DAY} 14:00:00`)]);

    const error = await recopyDay(fx.copyDeps(), copyTask("events", DAY)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RefusalError);
    expect(error).toMatchObject({ reason: "changed" });
    expect(await fx.ledger.copiedDay("events", DAY)).toEqual(first);
    expect(await fx.warehouse.countRows(archive("events"))).toBe(3);
  });
});
