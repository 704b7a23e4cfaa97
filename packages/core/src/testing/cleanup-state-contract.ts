import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TransientError } from "../errors";
import type { CleanupPlan } from "../model/day-chunks";
import type { TableDay } from "../model/table-day";
import type { CleanupState } from "../ports/cleanup-state";

/** What a CleanupState adapter hands the contract suite. */
export interface CleanupStateContractSubject {
  readonly state: CleanupState;
  /** A table name no other test has used with this state. */
  table(): string;
  /** Removes what the suite wrote. */
  cleanup(): Promise<void>;
}

const figures = { rows: 3, key: { column: "id", count: 3, sum: "6", min: "1", max: "3" } };
const plan: Extract<CleanupPlan, { kind: "chunks" }> = {
  kind: "chunks",
  by: { kind: "key", column: "id", unsigned: true },
  chunks: [
    { first: "1", last: "2", rows: 2, sum: "3", fingerprint: "18446744073709551615" },
    { first: "3", last: "3", rows: 1, sum: "3", fingerprint: "36893488147419103230" },
  ],
  newestFirst: false,
};

/**
 * The behaviour every CleanupState adapter must have (see
 * ports/cleanup-state.ts): the verified -> deleting -> done walk, a plan that
 * never changes under a running delete, done days listed as cleaned, and
 * leases held by one holder at a time until released or run out.
 */
export function describeCleanupStateContract(
  name: string,
  setup: () => Promise<CleanupStateContractSubject>,
): void {
  describe(`CleanupState contract: ${name}`, () => {
    let subject: CleanupStateContractSubject;
    const state = () => subject.state;
    const dayOf = (day = "2024-01-01"): TableDay => ({ table: subject.table(), day });

    beforeAll(async () => {
      subject = await setup();
    });
    afterAll(async () => {
      await subject?.cleanup();
    });

    it("walks verified -> deleting -> done, keeping figures, plan and progress, and lists the cleaned day", async () => {
      const at = dayOf();
      expect(await state().read(at)).toBeUndefined();
      await state().markVerified(at, { figures, plan, verifiedAt: "2026-01-01T00:00:00Z" });
      expect(await state().read(at)).toEqual({
        status: "verified",
        figures,
        plan,
        verifiedAt: "2026-01-01T00:00:00Z",
        chunksDone: 0,
        rowsDeleted: 0,
      });
      await state().markDeleting(at);
      await state().recordProgress(at, { chunksDone: 1, rowsDeleted: 2 });
      expect(await state().read(at)).toMatchObject({
        status: "deleting",
        plan,
        chunksDone: 1,
        rowsDeleted: 2,
      });
      expect(await state().cleanedDays(at.table)).toEqual([]);

      await state().markDone(at, { rowsDeleted: 3, chunksDone: 2, doneAt: "2026-01-01T00:01:00Z" });
      expect(await state().read(at)).toEqual({
        status: "done",
        figures,
        plan,
        verifiedAt: "2026-01-01T00:00:00Z",
        chunksDone: 2,
        rowsDeleted: 3,
        doneAt: "2026-01-01T00:01:00Z",
      });
      expect(await state().cleanedDays(at.table)).toEqual([at.day]);
    });

    it("replaces the plan of a day only verified, starting its progress over", async () => {
      const at = dayOf();
      await state().markVerified(at, { figures, plan, verifiedAt: "x" });
      const other: CleanupPlan = { ...plan, chunks: plan.chunks.slice(0, 1) };
      await state().markVerified(at, { figures: { rows: 2 }, plan: other, verifiedAt: "y" });
      expect(await state().read(at)).toMatchObject({
        status: "verified",
        figures: { rows: 2 },
        plan: other,
        verifiedAt: "y",
        chunksDone: 0,
      });
    });

    it("never replaces the plan of a day that is deleting or done", async () => {
      const deleting = dayOf();
      await state().markVerified(deleting, { figures, plan, verifiedAt: "x" });
      await state().markDeleting(deleting);
      const other: CleanupPlan = { ...plan, chunks: [] };
      await expect(
        state().markVerified(deleting, { figures, plan: other, verifiedAt: "y" }),
      ).rejects.toBeInstanceOf(TransientError);
      expect(await state().read(deleting)).toMatchObject({ status: "deleting", plan, verifiedAt: "x" });

      const done = dayOf();
      await state().markVerified(done, { figures, plan, verifiedAt: "x" });
      await state().markDone(done, { rowsDeleted: 3, chunksDone: 2, doneAt: "z" });
      await expect(
        state().markVerified(done, { figures, plan: other, verifiedAt: "y" }),
      ).rejects.toBeInstanceOf(TransientError);
      expect(await state().read(done)).toMatchObject({ status: "done", plan });
    });

    it("starts deleting only a verified day", async () => {
      const missing = dayOf();
      await expect(state().markDeleting(missing)).rejects.toBeInstanceOf(TransientError);
      expect(await state().read(missing)).toBeUndefined();

      const done = dayOf();
      await state().markDone(done, { rowsDeleted: 0, chunksDone: 0, doneAt: "z", figures });
      await expect(state().markDeleting(done)).rejects.toBeInstanceOf(TransientError);
      expect((await state().read(done))?.status).toBe("done");
    });

    it("marks a day found already clean done with its figures and a plan of no chunks", async () => {
      const at = dayOf("2024-01-05");
      await state().markDone(at, { rowsDeleted: 0, chunksDone: 0, doneAt: "z", figures });
      expect(await state().read(at)).toMatchObject({
        status: "done",
        figures,
        plan: { kind: "chunks", chunks: [] },
        rowsDeleted: 0,
        chunksDone: 0,
        doneAt: "z",
      });
      expect(await state().cleanedDays(at.table)).toEqual(["2024-01-05"]);
    });

    it("lists each table's cleaned days, sorted, and never another table's or day's", async () => {
      const { table } = dayOf();
      const other = subject.table();
      for (const day of ["2024-03-01", "2023-12-31", "2024-02-29"]) {
        await state().markDone({ table, day }, { rowsDeleted: 0, chunksDone: 0, doneAt: "z", figures });
      }
      await state().markDone(
        { table: other, day: "2024-01-01" },
        { rowsDeleted: 0, chunksDone: 0, doneAt: "z", figures },
      );
      await state().markVerified({ table, day: "2024-04-01" }, { figures, plan, verifiedAt: "x" });

      expect(await state().cleanedDays(table)).toEqual(["2023-12-31", "2024-02-29", "2024-03-01"]);
      expect(await state().cleanedDays(other)).toEqual(["2024-01-01"]);
      expect(await state().read({ table: other, day: "2024-03-01" })).toBeUndefined();
      expect(await state().read({ table, day: "2024-01-01" })).toBeUndefined();
    });

    it("leases a day to one holder at a time", async () => {
      const at = dayOf();
      expect(await state().claim(at, "a", 10_000)).toBe(true);
      expect(await state().claim(at, "b", 10_000)).toBe(false);
      expect(await state().claim(at, "a", 10_000)).toBe(false);
      expect(await state().renew(at, "b", 10_000)).toBe(false);
      expect(await state().renew(at, "a", 10_000)).toBe(true);
      await state().release(at, "b");
      expect(await state().claim(at, "b", 10_000)).toBe(false);
      await state().release(at, "a");
      expect(await state().renew(at, "a", 10_000)).toBe(false);
      expect(await state().claim(at, "b", 10_000)).toBe(true);
    });

    it("leases each day of each table apart", async () => {
      const at = dayOf("2024-01-01");
      expect(await state().claim(at, "a", 10_000)).toBe(true);
      expect(await state().claim({ ...at, day: "2024-01-02" }, "b", 10_000)).toBe(true);
      expect(await state().claim({ table: subject.table(), day: at.day }, "b", 10_000)).toBe(true);
    });

    it("lets a lease run out, and a renewal put that off", async () => {
      const lapsing = dayOf();
      expect(await state().claim(lapsing, "a", 50)).toBe(true);
      const renewed = dayOf();
      expect(await state().claim(renewed, "a", 400)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await state().renew(renewed, "a", 10_000)).toBe(true);
      // Past the first lease's 400 ms: only the renewal holds the day now.
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await state().claim(lapsing, "b", 10_000)).toBe(true);
      expect(await state().claim(renewed, "b", 10_000)).toBe(false);
    });
  });
}
