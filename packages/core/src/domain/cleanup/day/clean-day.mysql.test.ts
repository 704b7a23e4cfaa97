import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RefusalError, TransientError } from "../../../errors";
import {
  afterPlanning,
  type CleanupFixture,
  cleanTask,
  createCleanupFixture,
  dropOneWarehouseRow,
} from "../../../testing/cleanup-fixture";
import { LEASE_TTL_MS } from "../day-lease";
import { cleanDay } from "./clean-day";

let fx: CleanupFixture;

beforeAll(async () => {
  fx = await createCleanupFixture();
});

afterAll(async () => {
  await fx?.close();
});

describe("cleanDay on real MariaDB, Redis and DuckDB", () => {
  it("deletes exactly a migrated day's rows; neighbours one microsecond outside stay", async () => {
    const table = await fx.keyedTable(["2024-01-01", "2024-01-02", "2024-01-03"], 4);
    // The last instant of the previous day and the first of the next one.
    await fx.query(
      `INSERT INTO \`${table}\` (id, created_at, qty) VALUES (1001, '2024-01-01 23:59:59.999999', 0)`,
    );
    await fx.query(`INSERT INTO \`${table}\` (id, created_at, qty) VALUES (1002, '2024-01-03 00:00:00', 0)`);
    await fx.query(
      `INSERT INTO \`${table}\` (id, created_at, qty) VALUES (1003, '2024-01-02 23:59:59.999999', 0)`,
    );
    await fx.query(`INSERT INTO \`${table}\` (id, created_at, qty) VALUES (1004, '2024-01-02 00:00:00', 0)`);
    await fx.query(`INSERT INTO \`${table}\` (id, created_at, qty) VALUES (1005, NULL, 0)`);
    await fx.copy(table, "2024-01-02");
    const before = await fx.ids(table);
    const day = await fx.idsOn(table, "2024-01-02");
    expect(day).toEqual(["5", "6", "7", "8", "1003", "1004"]);

    const report = await cleanDay(fx.deps(), cleanTask(table, "2024-01-02"));

    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 6, chunks: 1, resumed: false });
    expect(await fx.ids(table)).toEqual(before.filter((id) => !day.includes(id)));
    expect(await fx.ledger.migratedDays(table)).toEqual(["2024-01-02"]);
    const line = fx.logs.find((l) => l.message === "cleaned day" && l.table === table);
    expect(line).toMatchObject({ day: "2024-01-02", rowsDeleted: 6, chunks: 1 });
    expect(typeof line?.durationMs).toBe("number");
    expect(typeof line?.longestChunkMs).toBe("number");
  });

  it("a warehouse missing one row keeps that day's source rows and names both figures", async () => {
    const table = await fx.keyedTable(["2024-02-01", "2024-02-02"], 5);
    await fx.copy(table, "2024-02-01");
    await fx.copy(table, "2024-02-02");
    await dropOneWarehouseRow(fx, table, "2024-02-01");

    const refused = cleanDay(fx.deps(), cleanTask(table, "2024-02-01"));
    await expect(refused).rejects.toBeInstanceOf(RefusalError);
    await expect(refused).rejects.toThrow(/source 5 rows.*warehouse 4 rows/);
    expect(await fx.idsOn(table, "2024-02-01")).toHaveLength(5);
    expect(await fx.deps().state.read({ table, day: "2024-02-01" })).toBeUndefined();

    await cleanDay(fx.deps(), cleanTask(table, "2024-02-02"));
    expect(await fx.idsOn(table, "2024-02-02")).toEqual([]);
  });

  it("refuses a day with a late row (new key) inserted after its copy, and deletes nothing", async () => {
    const table = await fx.keyedTable(["2024-03-01"], 5);
    await fx.copy(table, "2024-03-01");
    await fx.query(`INSERT INTO \`${table}\` (created_at, qty) VALUES ('2024-03-01 12:00:00', 99)`);

    await expect(cleanDay(fx.deps(), cleanTask(table, "2024-03-01"))).rejects.toThrow(
      /source 6 rows.*warehouse 5 rows/,
    );
    expect(await fx.idsOn(table, "2024-03-01")).toHaveLength(6);
  });

  it("a late row slipped into a chunk's key range after verification refuses that chunk; it is never deleted", async () => {
    const table = await fx.keyedTable(["2024-03-02"], 6, { idStep: 10 });
    await fx.copy(table, "2024-03-02");
    // Chunks of 2 keys: [10,20] [30,40] [50,60]. Key 35 lands inside the second.
    const deleter = afterPlanning(fx.deleter, () =>
      fx.query(`INSERT INTO \`${table}\` (id, created_at, qty) VALUES (35, '2024-03-02 05:00:00', 0)`),
    );
    const run = cleanDay(fx.deps({ deleter, settings: { chunkRows: 2 } }), cleanTask(table, "2024-03-02"));

    await expect(run).rejects.toThrow(/planned 2 rows .* found 3/);
    expect(await fx.idsOn(table, "2024-03-02")).toEqual(["30", "35", "40", "50", "60"]);
    // A retry resumes at the same chunk and refuses again; it never "catches up" by deleting 35.
    await expect(
      cleanDay(fx.deps({ settings: { chunkRows: 2 } }), cleanTask(table, "2024-03-02")),
    ).rejects.toThrow(RefusalError);
    expect(await fx.ids(table)).toContain("35");
  });

  it("late rows between chunk ranges or above the recorded range survive a completed cleanup", async () => {
    const table = await fx.keyedTable(["2024-03-03"], 6, { idStep: 10 });
    await fx.copy(table, "2024-03-03");
    const deleter = afterPlanning(fx.deleter, async () => {
      await fx.query(`INSERT INTO \`${table}\` (id, created_at, qty) VALUES (25, '2024-03-03 05:00:00', 0)`);
      await fx.query(`INSERT INTO \`${table}\` (created_at, qty) VALUES ('2024-03-03 06:00:00', 0)`);
    });

    const report = await cleanDay(
      fx.deps({ deleter, settings: { chunkRows: 2 } }),
      cleanTask(table, "2024-03-03"),
    );

    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 6, chunks: 3 });
    expect(await fx.idsOn(table, "2024-03-03")).toEqual(["25", "61"]);
  });

  it("a repeated task on a finished day is a no-op, but not once rows arrived since: they are kept and reported", async () => {
    const table = await fx.keyedTable(["2024-05-01"], 3);
    await fx.copy(table, "2024-05-01");
    await cleanDay(fx.deps(), cleanTask(table, "2024-05-01"));

    const again = await cleanDay(fx.deps(), cleanTask(table, "2024-05-01"));
    expect(again).toMatchObject({ outcome: "already-done", rowsDeleted: 3, chunks: 0 });

    await fx.query(`INSERT INTO \`${table}\` (created_at, qty) VALUES ('2024-05-01 08:00:00', 1)`);
    const late = cleanDay(fx.deps(), cleanTask(table, "2024-05-01"));
    await expect(late).rejects.toMatchObject({ reason: "rows-after-cleanup" });
    await expect(late).rejects.toThrow(/recorded as cleaned at .* but the source holds 1 row of the day now/);
    expect(await fx.idsOn(table, "2024-05-01")).toHaveLength(1);
  });

  it("a day whose copied rows are all gone but other rows took their place is refused, not called clean", async () => {
    const table = await fx.keyedTable(["2024-05-04"], 3);
    await fx.copy(table, "2024-05-04");
    await fx.query(`DELETE FROM \`${table}\``);
    await fx.query(`INSERT INTO \`${table}\` (id, created_at, qty) VALUES (900, '2024-05-04 10:00:00', 1)`);

    await expect(cleanDay(fx.deps(), cleanTask(table, "2024-05-04"))).rejects.toMatchObject({
      reason: "changed",
    });
    expect(await fx.idsOn(table, "2024-05-04")).toEqual(["900"]);
    expect(await fx.deps().state.cleanedDays(table)).toEqual([]);
  });

  it("a day already emptied with a full warehouse copy is marked clean without deleting", async () => {
    const table = await fx.keyedTable(["2024-05-02"], 3);
    await fx.copy(table, "2024-05-02");
    await fx.query(`DELETE FROM \`${table}\``);
    const report = await cleanDay(fx.deps(), cleanTask(table, "2024-05-02"));
    expect(report).toMatchObject({ outcome: "already-clean", rowsDeleted: 0 });
    expect(await fx.deps().state.cleanedDays(table)).toEqual(["2024-05-02"]);
  });

  it("refuses a day that is not in mig_<table>", async () => {
    const table = await fx.keyedTable(["2024-05-03"], 3);
    await expect(cleanDay(fx.deps(), cleanTask(table, "2024-05-03"))).rejects.toThrow(/not in mig_/);
    expect(await fx.idsOn(table, "2024-05-03")).toHaveLength(3);
  });

  it("a second task for a day being cleaned backs off", async () => {
    const table = await fx.keyedTable(["2024-05-04"], 3);
    await fx.copy(table, "2024-05-04");
    expect(await fx.deps().state.claim({ table, day: "2024-05-04" }, "other", LEASE_TTL_MS)).toBe(true);
    await expect(cleanDay(fx.deps(), cleanTask(table, "2024-05-04"))).rejects.toBeInstanceOf(TransientError);
    expect(await fx.idsOn(table, "2024-05-04")).toHaveLength(3);
  });
});
