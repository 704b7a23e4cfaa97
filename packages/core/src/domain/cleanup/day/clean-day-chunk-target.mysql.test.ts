import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { closeAccounts, depsAs } from "../../../testing/cleanup/accounts";
import { cleanupFixture, fx } from "../../../testing/cleanup/file-fixture";
import { cleanTask, failAfter, refusal } from "../../../testing/cleanup-fixture";
import { createMemoryRateCap } from "../../../testing/fakes/memory-rate-cap";
import { cleanDay } from "./clean-day";

// Deletes that join planned chunks to last about CLEANUP_CHUNK_TARGET_MS (createChunkPacer).

beforeAll(cleanupFixture.create);
afterAll(cleanupFixture.close);
afterEach(closeAccounts);

/** Two-row planned chunks, joined toward a target no delete of this size reaches: they double each time. */
const joining = { chunkRows: 2, chunkTargetMs: 60_000 };

describe("cleanDay with a chunk target", () => {
  it("joins planned chunks into fewer deletes and deletes exactly the day", async () => {
    const table = await fx.keyedTable(["2024-05-01", "2024-05-02"], 30);
    await fx.copy(table, "2024-05-01");
    const untouched = await fx.idsOn(table, "2024-05-02");

    const report = await cleanDay(fx.deps({ settings: joining }), cleanTask(table, "2024-05-01"));

    // 15 planned chunks taken 1, 2, 4, 8 at a time.
    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 30, chunks: 4 });
    expect(await fx.idsOn(table, "2024-05-01")).toEqual([]);
    expect(await fx.idsOn(table, "2024-05-02")).toEqual(untouched);
  });

  it("joins planned chunks as an account holding only the documented grants, and deletes exactly the day", async () => {
    const table = await fx.keyedTable(["2024-05-06", "2024-05-07"], 30);
    await fx.copy(table, "2024-05-06");
    const untouched = await fx.idsOn(table, "2024-05-07");
    const { deps } = await depsAs(
      [
        `GRANT SELECT, DELETE, TRIGGER ON \`${fx.db.name}\`.\`${table}\` TO {account}`,
        "GRANT PROCESS ON *.* TO {account}",
      ],
      { settings: joining },
    );

    const report = await cleanDay(deps, cleanTask(table, "2024-05-06"));

    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 30, chunks: 4 });
    expect(await fx.idsOn(table, "2024-05-06")).toEqual([]);
    expect(await fx.idsOn(table, "2024-05-07")).toEqual(untouched);
  });

  it("joins nothing under the table's rate cap: the cap's pace spreads the planned chunks", async () => {
    const table = await fx.keyedTable(["2024-05-05"], 30);
    await fx.copy(table, "2024-05-05");

    const report = await cleanDay(fx.deps({ settings: joining, rateCap: createMemoryRateCap() }), {
      ...cleanTask(table, "2024-05-05"),
      maxRowsPerSecond: 1_000_000,
    });

    // 15 planned chunks of two rows, one delete each.
    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 30, chunks: 15 });
    expect(await fx.idsOn(table, "2024-05-05")).toEqual([]);
  });

  it("after a kill that committed a joined delete, the retry finds its chunks gone one by one and finishes", async () => {
    const table = await fx.keyedTable(["2024-05-03"], 30);
    await fx.copy(table, "2024-05-03");
    // The third delete (planned chunks 4 to 7, 8 rows) commits, then the task dies before recording it.
    const deleter = failAfter(fx.deleter, 3);
    await expect(
      cleanDay(fx.deps({ deleter, settings: joining }), cleanTask(table, "2024-05-03")),
    ).rejects.toThrow("killed");
    expect(await fx.idsOn(table, "2024-05-03")).toHaveLength(30 - 2 - 4 - 8);
    expect(await fx.deps().state.read({ table, day: "2024-05-03" })).toMatchObject({ chunksDone: 3 });

    const report = await cleanDay(fx.deps({ settings: joining }), cleanTask(table, "2024-05-03"));

    expect(report).toMatchObject({
      outcome: "cleaned",
      resumed: true,
      rowsFoundGone: 8,
      rowsDeleted: 30 - 8,
    });
    expect(await fx.idsOn(table, "2024-05-03")).toEqual([]);
  });

  it("stops at a joined delete whose rows changed: none of its rows go, the deletes before it stay", async () => {
    const table = await fx.keyedTable(["2024-05-04"], 30);
    await fx.copy(table, "2024-05-04");
    const ids = await fx.idsOn(table, "2024-05-04");
    let calls = 0;
    const deleter = {
      ...fx.deleter,
      async deleteChunk(...args: Parameters<typeof fx.deleter.deleteChunk>) {
        // Before the third delete (ids 7..14), a row inside it changes.
        if (++calls === 3) await fx.query(`UPDATE \`${table}\` SET qty = qty + 1 WHERE id = ?`, [ids[9]]);
        return fx.deleter.deleteChunk(...args);
      },
    };

    const error = await refusal(
      cleanDay(fx.deps({ deleter, settings: joining }), cleanTask(table, "2024-05-04")),
    );

    expect(error.reason).toBe("changed");
    expect(await fx.idsOn(table, "2024-05-04")).toEqual(ids.slice(6));
  });
});
