import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isFinalTaskError } from "../../../errors";
import { rowsOf } from "../../../testing/cleanup/content-rows";
import { cleanupFixture, fx } from "../../../testing/cleanup/file-fixture";
import { afterPlanning, cleanTask, failAfter, refusal } from "../../../testing/cleanup-fixture";
import { uniqueName } from "../../../testing/test-services";
import { cleanDay } from "./clean-day";

// A row changed while the task was down after a kill: clean-day-content.mysql.test.ts.

beforeAll(cleanupFixture.create);
afterAll(cleanupFixture.close);

describe("a change between verification and a chunk's delete", () => {
  it("stops at the changed chunk: earlier chunks deleted, that chunk and later ones kept as updated", async () => {
    const table = await fx.keyedTable(["2024-07-15"], 8, { idStep: 10 });
    await fx.copy(table, "2024-07-15");
    // Chunks of 2 keys: [10,20] [30,40] [50,60] [70,80]; 50 changes once the plan is made.
    const deleter = afterPlanning(fx.deleter, () =>
      fx.query(`UPDATE \`${table}\` SET note = 'edited', qty = 1000 WHERE id = 50`),
    );

    const error = await refusal(
      cleanDay(fx.deps({ deleter, settings: { chunkRows: 2 } }), cleanTask(table, "2024-07-15")),
    );

    expect(error.reason).toBe("changed");
    expect(isFinalTaskError(error)).toBe(true);
    expect(error.message).toMatch(/id 50\.\.60: rows changed since verification: planned 2 rows/);
    expect(error.message).toMatch(/4 rows of the day were deleted before it/);
    expect(await fx.idsOn(table, "2024-07-15")).toEqual(["50", "60", "70", "80"]);
    const [changed] = await fx.query<{ qty: number; note: string }>(
      `SELECT qty, note FROM \`${table}\` WHERE id = 50`,
    );
    expect(changed).toEqual({ qty: 1000, note: "edited" });
    expect(await fx.deps().state.read({ table, day: "2024-07-15" })).toMatchObject({
      status: "deleting",
      chunksDone: 2,
      rowsDeleted: 4,
    });

    // A retry resumes at the changed chunk and refuses it again: 50 is never deleted.
    await refusal(cleanDay(fx.deps({ settings: { chunkRows: 2 } }), cleanTask(table, "2024-07-15")));
    expect(await fx.idsOn(table, "2024-07-15")).toEqual(["50", "60", "70", "80"]);
  });

  it("a keyless table: a row of a later chunk changed after planning stops that chunk", async () => {
    const table = uniqueName("events");
    await fx.query(
      `CREATE TABLE \`${table}\` (created_at DATETIME NOT NULL, note VARCHAR(16)) ENGINE=InnoDB`,
    );
    for (let i = 1; i <= 6; i++) {
      await fx.query(`INSERT INTO \`${table}\` VALUES (?, ?)`, [`2024-07-16 0${i}:00:00`, `n${i}`]);
    }
    await fx.copy(table, "2024-07-16");
    const deleter = afterPlanning(fx.deleter, () =>
      fx.query(`UPDATE \`${table}\` SET note = 'edited' WHERE note = 'n4'`),
    );

    const error = await refusal(
      cleanDay(fx.deps({ deleter, settings: { chunkRows: 2 } }), cleanTask(table, "2024-07-16")),
    );

    expect(error.reason).toBe("changed");
    expect(error.message).toMatch(
      /created_at 2024-07-16 03:00:00\.\.2024-07-16 04:00:00: rows changed since verification/,
    );
    expect(await rowsOf(table, "created_at")).toEqual([
      { created_at: "2024-07-16 03:00:00", note: "n3" },
      { created_at: "2024-07-16 04:00:00", note: "edited" },
      { created_at: "2024-07-16 05:00:00", note: "n5" },
      { created_at: "2024-07-16 06:00:00", note: "n6" },
    ]);
  });
});

describe("a kill in the middle of a content-checked delete", () => {
  it("keyed: the retry resumes and deletes exactly the day's rows", async () => {
    const table = await fx.keyedTable(["2024-07-20", "2024-07-21", "2024-07-22"], 7);
    await fx.copy(table, "2024-07-21");
    const others = [...(await fx.idsOn(table, "2024-07-20")), ...(await fx.idsOn(table, "2024-07-22"))];
    const settings = { chunkRows: 3 };

    await expect(
      cleanDay(fx.deps({ deleter: failAfter(fx.deleter, 2), settings }), cleanTask(table, "2024-07-21")),
    ).rejects.toThrow("killed");
    expect(await fx.idsOn(table, "2024-07-21")).toEqual(["14"]);

    const report = await cleanDay(fx.deps({ settings }), cleanTask(table, "2024-07-21"));

    expect(report).toMatchObject({ outcome: "cleaned", resumed: true, rowsDeleted: 3 + 1, rowsFoundGone: 3 });
    expect(await fx.ids(table)).toEqual(others);
  });

  it("keyless: a kill after a chunk committed, then a retry, deletes exactly the day's rows", async () => {
    const table = uniqueName("events");
    await fx.query(
      `CREATE TABLE \`${table}\` (created_at DATETIME NOT NULL, note VARCHAR(16)) ENGINE=InnoDB`,
    );
    for (const day of ["2024-07-23", "2024-07-24", "2024-07-25"]) {
      for (let i = 1; i <= 5; i++) {
        await fx.query(`INSERT INTO \`${table}\` VALUES (?, ?)`, [`${day} 0${i}:00:00`, `${day}/${i}`]);
      }
    }
    // Duplicates too: a chunk of identical rows must go as a whole.
    await fx.query(`INSERT INTO \`${table}\` VALUES ('2024-07-24 03:00:00', '2024-07-24/3')`);
    await fx.copy(table, "2024-07-24");
    const others = (await rowsOf(table, "created_at")).filter(
      (row) => !String(row.note).startsWith("2024-07-24"),
    );
    const settings = { chunkRows: 2 };

    await expect(
      cleanDay(fx.deps({ deleter: failAfter(fx.deleter, 2), settings }), cleanTask(table, "2024-07-24")),
    ).rejects.toThrow("killed");
    // Chunks {01,02} {03,03} {04,05}: two committed.
    expect(
      (await rowsOf(table, "created_at")).filter((row) => String(row.note).startsWith("2024-07-24")),
    ).toEqual([
      { created_at: "2024-07-24 04:00:00", note: "2024-07-24/4" },
      { created_at: "2024-07-24 05:00:00", note: "2024-07-24/5" },
    ]);

    const report = await cleanDay(fx.deps({ settings }), cleanTask(table, "2024-07-24"));

    expect(report).toMatchObject({ outcome: "cleaned", resumed: true, rowsDeleted: 2 + 2, rowsFoundGone: 2 });
    expect(await rowsOf(table, "created_at")).toEqual(others);
  });
});
