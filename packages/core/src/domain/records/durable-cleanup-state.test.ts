import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChunkPlan } from "../../model/day-chunks";
import type { CleanupState } from "../../ports/cleanup-state";
import { createMemoryFixture, type MemoryFixture } from "../../testing/memory-fixture";
import { withDurableCleanup } from "./durable-cleanup-state";

// The cleanup state keeping a started cleanup's plan beyond Redis; cleanDay's use of it after Redis
// lost its data is in clean-day-recovery.test.ts and redis-loss.mysql.test.ts.

let fx: MemoryFixture;
let state: CleanupState;
beforeEach(async () => {
  fx = await createMemoryFixture();
  state = withDurableCleanup(fx.state, fx.cleanupDeps());
});
afterEach(async () => {
  await fx.close();
});

const at = { table: "orders", day: "2024-04-01" };
const copy = { copiedAt: "2024-05-01T00:00:00.000Z", destination: "orders" };
const figures = { rows: 4 };
const chunk = (first: number) => ({ first: `${first}`, last: `${first + 1}`, rows: 2, fingerprint: "1" });
const plan = (chunks: number): ChunkPlan => ({
  kind: "chunks",
  by: { kind: "key", column: "id", unsigned: true },
  chunks: Array.from({ length: chunks }, (_, i) => chunk(i * 2)),
  newestFirst: false,
});
const durable = () => fx.warehouse.dayRecord({ dataset: "archive" }, at.table, at.day);

describe("withDurableCleanup", () => {
  it("keeps the plan of a day deleted in several transactions in the durable record, under its copy", async () => {
    await state.markVerified(at, { figures, plan: plan(2), verifiedAt: "v", copy });
    expect((await durable()).cleanup).toEqual({
      figures,
      plan: plan(2),
      verifiedAt: "v",
      copiedAt: copy.copiedAt,
    });
    // The store's own state does not keep the copy.
    expect(await fx.state.read(at)).toEqual({
      status: "verified",
      figures,
      plan: plan(2),
      verifiedAt: "v",
      chunksDone: 0,
      rowsDeleted: 0,
    });
  });

  it("keeps nothing for a day of one chunk, nor without the copy it was verified against", async () => {
    await state.markVerified(at, { figures, plan: plan(1), verifiedAt: "v", copy });
    await state.markVerified({ ...at, day: "2024-04-02" }, { figures, plan: plan(2), verifiedAt: "v" });
    expect((await durable()).cleanup).toBeUndefined();
    expect(
      (await fx.warehouse.dayRecord({ dataset: "archive" }, at.table, "2024-04-02")).cleanup,
    ).toBeUndefined();
  });

  it("takes a lost cleanup up again as deleting, only for the copy it was verified against", async () => {
    await state.markVerified(at, { figures, plan: plan(3), verifiedAt: "v", copy });
    await state.markDeleting(at);
    fx.state.clear();

    expect(await state.resumeLost(at, { ...copy, copiedAt: "2024-06-01T00:00:00.000Z" })).toBeUndefined();
    expect(await fx.state.read(at)).toBeUndefined();

    const resumed = await state.resumeLost(at, copy);
    const expected = {
      status: "deleting",
      figures,
      plan: plan(3),
      verifiedAt: "v",
      chunksDone: 0,
      rowsDeleted: 0,
    };
    expect(resumed).toEqual(expected);
    expect(await fx.state.read(at)).toEqual(expected);
    expect(fx.logged(/^cleanup: resuming a day whose cleanup had started/)).toHaveLength(1);
  });

  it("answers nothing for a day whose cleanup never started", async () => {
    expect(await state.resumeLost(at, copy)).toBeUndefined();
    expect(await fx.state.resumeLost(at, copy)).toBeUndefined();
  });
});
