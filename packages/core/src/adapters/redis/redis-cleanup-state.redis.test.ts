import { afterAll, describe, expect, it } from "vitest";
import { RefusalError, TransientError } from "../../errors";
import type { CleanupPlan } from "../../model/day-chunks";
import { deleteKeysWithPrefix, testRedisUrl, uniqueName } from "../../testing/test-services";
import { createRedisClient } from "./create-redis-client";
import { cleanupKeys, createRedisCleanupState } from "./redis-cleanup-state";

const redis = createRedisClient({ url: testRedisUrl, auth: undefined });
const prefix = uniqueName("cleanup_state");
const state = createRedisCleanupState(redis, { prefix });

afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  await redis.quit();
});

const figures = { rows: 3, key: { column: "id", count: 3, sum: "6", min: "1", max: "3" } };
const plan: CleanupPlan = {
  kind: "chunks",
  by: { kind: "key", column: "id", unsigned: true },
  chunks: [{ first: "1", last: "3", rows: 3, sum: "6", fingerprint: "18446744073709551615" }],
  newestFirst: false,
};

describe("createRedisCleanupState", () => {
  it("walks verified -> deleting -> done and lists the cleaned day", async () => {
    await state.markVerified(
      { table: "t1", day: "2024-01-01" },
      { figures, plan, verifiedAt: "2026-01-01T00:00:00Z" },
    );
    expect(await state.read({ table: "t1", day: "2024-01-01" })).toMatchObject({
      status: "verified",
      figures,
      plan,
      chunksDone: 0,
    });
    await state.markDeleting({ table: "t1", day: "2024-01-01" });
    await state.recordProgress({ table: "t1", day: "2024-01-01" }, { chunksDone: 1, rowsDeleted: 3 });
    expect(await state.read({ table: "t1", day: "2024-01-01" })).toMatchObject({
      status: "deleting",
      chunksDone: 1,
      rowsDeleted: 3,
    });
    expect(await state.cleanedDays("t1")).toEqual([]);
    await state.markDone(
      { table: "t1", day: "2024-01-01" },
      {
        rowsDeleted: 3,
        chunksDone: 1,
        doneAt: "2026-01-01T00:01:00Z",
      },
    );
    expect(await state.read({ table: "t1", day: "2024-01-01" })).toMatchObject({
      status: "done",
      plan,
      rowsDeleted: 3,
    });
    expect(await state.cleanedDays("t1")).toEqual(["2024-01-01"]);
  });

  it("never replaces the plan of a day that is deleting or done", async () => {
    await state.markVerified({ table: "t2", day: "2024-01-01" }, { figures, plan, verifiedAt: "x" });
    await state.markDeleting({ table: "t2", day: "2024-01-01" });
    const other: CleanupPlan = { ...plan, chunks: [] };
    await expect(
      state.markVerified({ table: "t2", day: "2024-01-01" }, { figures, plan: other, verifiedAt: "y" }),
    ).rejects.toThrow(TransientError);
    expect((await state.read({ table: "t2", day: "2024-01-01" }))?.plan).toEqual(plan);
    await expect(state.markDeleting({ table: "t2", day: "2024-01-02" })).rejects.toThrow(/status missing/);
  });

  it("marks a day found already clean done with its figures and no plan", async () => {
    await state.markDone(
      { table: "t3", day: "2024-01-05" },
      { rowsDeleted: 0, chunksDone: 0, doneAt: "z", figures },
    );
    expect(await state.read({ table: "t3", day: "2024-01-05" })).toMatchObject({
      status: "done",
      figures,
      rowsDeleted: 0,
    });
    expect(await state.cleanedDays("t3")).toEqual(["2024-01-05"]);
  });

  it("refuses to resume from a state it cannot read", async () => {
    await redis.hset(cleanupKeys(prefix, "t4", "2024-01-01").day, {
      status: "deleting",
      figures: "{",
      plan: "{",
    });
    await expect(state.read({ table: "t4", day: "2024-01-01" })).rejects.toBeInstanceOf(RefusalError);
  });

  it("leases a day to one holder at a time", async () => {
    expect(await state.claim({ table: "t5", day: "2024-01-01" }, "a", 10_000)).toBe(true);
    expect(await state.claim({ table: "t5", day: "2024-01-01" }, "b", 10_000)).toBe(false);
    expect(await state.renew({ table: "t5", day: "2024-01-01" }, "b", 10_000)).toBe(false);
    expect(await state.renew({ table: "t5", day: "2024-01-01" }, "a", 10_000)).toBe(true);
    await state.release({ table: "t5", day: "2024-01-01" }, "b");
    expect(await state.claim({ table: "t5", day: "2024-01-01" }, "b", 10_000)).toBe(false);
    await state.release({ table: "t5", day: "2024-01-01" }, "a");
    expect(await state.claim({ table: "t5", day: "2024-01-01" }, "b", 10_000)).toBe(true);
  });

  it("lets a lease run out", async () => {
    expect(await state.claim({ table: "t6", day: "2024-01-01" }, "a", 50)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await state.claim({ table: "t6", day: "2024-01-01" }, "b", 10_000)).toBe(true);
  });
});
