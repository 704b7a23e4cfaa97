import { describe, expect, it } from "vitest";
import { describeCleanupStateContract } from "../cleanup-state-contract";
import { createMemoryCleanupState } from "./memory-cleanup-state";

describeCleanupStateContract("in memory", async () => {
  let tables = 0;
  return { state: createMemoryCleanupState(), table: () => `t${++tables}`, cleanup: async () => {} };
});

describe("createMemoryCleanupState", () => {
  it("runs leases out by the clock it is given", async () => {
    let now = 0;
    const state = createMemoryCleanupState({ now: () => now });
    const at = { table: "orders", day: "2024-01-01" };
    expect(await state.claim(at, "a", 15_000)).toBe(true);
    now = 14_999;
    expect(await state.claim(at, "b", 15_000)).toBe(false);
    now = 15_000;
    expect(await state.renew(at, "a", 15_000)).toBe(false);
    expect(await state.claim(at, "b", 15_000)).toBe(true);
  });

  it("forgets everything on clear, as Redis losing its data would", async () => {
    const state = createMemoryCleanupState();
    const at = { table: "orders", day: "2024-01-01" };
    await state.markDone(at, { rowsDeleted: 1, chunksDone: 1, doneAt: "z", figures: { rows: 1 } });
    await state.claim(at, "a", 10_000);
    state.clear();
    expect(await state.read(at)).toBeUndefined();
    expect(await state.cleanedDays("orders")).toEqual([]);
    expect(await state.claim(at, "b", 10_000)).toBe(true);
  });
});
