import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RefusalError } from "../../../errors";
import { afterPlanning, refusal } from "../../../testing/day-deleter-faults";
import {
  cleanTask,
  createMemoryFixture,
  event,
  eventsSchema,
  type MemoryFixture,
  rowsOnDays,
} from "../../../testing/memory-fixture";
import { cleanDay } from "./clean-day";

// cleanDay on the in-memory source, deleter, ledger and cleanup state, against an in-memory
// DuckDB warehouse. clean-day*.mysql.test.ts run it against MariaDB, Redis and a DuckDB file.

let fx: MemoryFixture;
beforeEach(async () => {
  fx = await createMemoryFixture();
});
afterEach(async () => {
  await fx.close();
});

describe("cleanDay", () => {
  it("deletes exactly a migrated day's rows; neighbours one microsecond outside stay", async () => {
    fx.source.createTable(eventsSchema("orders"), [
      ...rowsOnDays(["2024-01-01", "2024-01-02", "2024-01-03"], 2),
      event(1001, "2024-01-01 23:59:59.999999"),
      event(1002, "2024-01-03 00:00:00"),
      event(1003, "2024-01-02 23:59:59.999999"),
      event(1004, "2024-01-02 00:00:00"),
      event(1005, null),
    ]);
    await fx.copy("orders", "2024-01-02");

    const report = await cleanDay(fx.cleanupDeps(), cleanTask("orders", "2024-01-02"));

    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 4, chunks: 1, resumed: false });
    expect(fx.ids("orders")).toEqual(["1", "2", "5", "6", "1001", "1002", "1005"]);
    expect(await fx.ledger.migratedDays("orders")).toEqual(["2024-01-02"]);
    expect(await fx.state.cleanedDays("orders")).toEqual(["2024-01-02"]);
    expect(fx.logged(/^cleaned day$/)).toMatchObject([
      { table: "orders", day: "2024-01-02", rowsDeleted: 4 },
    ]);
  });

  it("deletes a day of several chunks, recording the plan durably before the first delete", async () => {
    await fx.orders(["2024-01-01", "2024-01-02"], 5);
    const settings = { chunkRows: 2, pauseMs: 7 };

    const report = await cleanDay(fx.cleanupDeps({ settings }), cleanTask("orders", "2024-01-01"));

    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 5, chunks: 3, rowsFoundGone: 0 });
    expect(fx.ids("orders", "2024-01-01")).toEqual([]);
    expect(fx.ids("orders", "2024-01-02")).toHaveLength(5);
    expect(await fx.state.read({ table: "orders", day: "2024-01-01" })).toMatchObject({
      status: "done",
      chunksDone: 3,
      rowsDeleted: 5,
      plan: {
        kind: "chunks",
        chunks: [{ first: "1", last: "2" }, { first: "3", last: "4" }, { first: "5" }],
      },
    });
    const { cleanup } = await fx.warehouse.dayRecord({ dataset: "archive" }, "orders", "2024-01-01");
    expect(cleanup?.plan).toMatchObject({ kind: "chunks", chunks: [{}, {}, {}] });
    expect(fx.sleeps).toEqual([7, 7]);
  });

  it("cleans a table without a single integer key by filter-column chunks", async () => {
    fx.source.createTable(eventsSchema("orders", { keyed: false }), rowsOnDays(["2024-01-01"], 5));
    await fx.copy("orders", "2024-01-01");
    const report = await cleanDay(
      fx.cleanupDeps({ settings: { chunkRows: 2 } }),
      cleanTask("orders", "2024-01-01"),
    );
    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 5, chunks: 3 });
    expect(fx.ids("orders")).toEqual([]);
  });

  it("refuses a day whose warehouse copy no longer matches its record, keeping the source's rows", async () => {
    await fx.orders(["2024-02-01", "2024-02-02"], 5);
    // The warehouse's day gains a row behind the copy's back.
    const schema = eventsSchema("orders");
    const at = {
      destination: { dataset: "archive", table: "orders" },
      filterColumn: "created_at",
      day: "2024-02-01",
    };
    const rows = [...fx.source.rows("orders").slice(0, 5), event(99, "2024-02-01 20:00:00")];
    await fx.warehouse.replaceDay(
      at,
      schema,
      (async function* () {
        yield rows;
      })(),
      "id",
    );

    const error = await refusal(cleanDay(fx.cleanupDeps(), cleanTask("orders", "2024-02-01")));
    expect(error.reason).toBe("warehouse");
    expect(error.message).toMatch(/source 5 rows.*warehouse 6 rows/);
    expect(fx.ids("orders", "2024-02-01")).toHaveLength(5);
    expect(await fx.state.read({ table: "orders", day: "2024-02-01" })).toBeUndefined();

    await cleanDay(fx.cleanupDeps(), cleanTask("orders", "2024-02-02"));
    expect(fx.ids("orders", "2024-02-02")).toEqual([]);
  });

  it("refuses a day with a row inserted after its copy, and deletes nothing", async () => {
    await fx.orders(["2024-03-01"], 5);
    fx.source.insertRows("orders", [event(6, "2024-03-01 12:00:00")]);
    const error = await refusal(cleanDay(fx.cleanupDeps(), cleanTask("orders", "2024-03-01")));
    expect(error.reason).toBe("changed");
    expect(error.message).toMatch(/source 6 rows.*warehouse 5 rows/);
    expect(fx.ids("orders", "2024-03-01")).toHaveLength(6);
  });

  it("refuses a day whose rows changed in content only", async () => {
    await fx.orders(["2024-03-01"], 3);
    fx.source.updateRows(
      "orders",
      (row) => row[0] === "2",
      (row) => [row[0], row[1], "edited", null, null],
    );
    const error = await refusal(cleanDay(fx.cleanupDeps(), cleanTask("orders", "2024-03-01")));
    expect(error.message).toMatch(/rows changed: the same rows by count and key/);
    expect(fx.ids("orders")).toHaveLength(3);
  });

  it("refuses a chunk a row slipped into after verification; a retry refuses it again", async () => {
    await fx.orders(["2024-03-02"], 6, { idStep: 10 });
    // Chunks of 2 keys: [10,20] [30,40] [50,60]. Key 35 lands inside the second.
    const deleter = afterPlanning(fx.deleter, async () =>
      fx.source.insertRows("orders", [event(35, "2024-03-02 05:00:00")]),
    );
    const settings = { chunkRows: 2 };
    const run = cleanDay(fx.cleanupDeps({ deleter, settings }), cleanTask("orders", "2024-03-02"));

    await expect(run).rejects.toThrow(/planned 2 rows .* found 3/);
    expect(fx.ids("orders")).toEqual(["30", "40", "50", "60", "35"]);
    await expect(cleanDay(fx.cleanupDeps({ settings }), cleanTask("orders", "2024-03-02"))).rejects.toThrow(
      RefusalError,
    );
    expect(fx.ids("orders")).toContain("35");
  });

  it("leaves rows between chunk ranges or above the recorded range after a completed cleanup", async () => {
    await fx.orders(["2024-03-03"], 6, { idStep: 10 });
    const deleter = afterPlanning(fx.deleter, async () =>
      fx.source.insertRows("orders", [event(25, "2024-03-03 05:00:00"), event(61, "2024-03-03 06:00:00")]),
    );
    const report = await cleanDay(
      fx.cleanupDeps({ deleter, settings: { chunkRows: 2 } }),
      cleanTask("orders", "2024-03-03"),
    );
    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 6, chunks: 3 });
    expect(fx.ids("orders")).toEqual(["25", "61"]);
  });

  it("is a no-op when repeated on a finished day, but not once rows arrived since", async () => {
    await fx.orders(["2024-05-01"], 3);
    await cleanDay(fx.cleanupDeps(), cleanTask("orders", "2024-05-01"));
    expect(await cleanDay(fx.cleanupDeps(), cleanTask("orders", "2024-05-01"))).toMatchObject({
      outcome: "already-done",
      rowsDeleted: 3,
      chunks: 0,
    });

    fx.source.insertRows("orders", [event(9, "2024-05-01 08:00:00")]);
    const error = await refusal(cleanDay(fx.cleanupDeps(), cleanTask("orders", "2024-05-01")));
    expect(error.reason).toBe("rows-after-cleanup");
    expect(fx.ids("orders")).toEqual(["9"]);
  });

  it("marks a day already emptied, with a full warehouse copy, clean without deleting", async () => {
    await fx.orders(["2024-05-02"], 3);
    fx.source.deleteRows("orders", () => true);
    const report = await cleanDay(fx.cleanupDeps(), cleanTask("orders", "2024-05-02"));
    expect(report).toMatchObject({ outcome: "already-clean", rowsDeleted: 0 });
    expect(await fx.state.cleanedDays("orders")).toEqual(["2024-05-02"]);
  });

  it("refuses a day whose copied rows are gone but other rows took their place", async () => {
    await fx.orders(["2024-05-04"], 3);
    fx.source.deleteRows("orders", () => true);
    fx.source.insertRows("orders", [event(900, "2024-05-04 10:00:00")]);
    expect((await refusal(cleanDay(fx.cleanupDeps(), cleanTask("orders", "2024-05-04")))).reason).toBe(
      "changed",
    );
    expect(fx.ids("orders")).toEqual(["900"]);
    expect(await fx.state.cleanedDays("orders")).toEqual([]);
  });

  it("refuses a day that is not migrated", async () => {
    await fx.orders(["2024-05-03"], 3, { copied: [] });
    await expect(cleanDay(fx.cleanupDeps(), cleanTask("orders", "2024-05-03"))).rejects.toThrow(
      /not in mig_/,
    );
    expect(fx.ids("orders")).toHaveLength(3);
  });
});
