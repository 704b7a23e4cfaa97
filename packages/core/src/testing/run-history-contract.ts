import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_COUNTS, type RunStart } from "../model/run";
import type { RunHistory } from "../ports/run-history";
import { uniqueName } from "./test-services";

/** What a RunHistory adapter hands the contract suite. */
export interface RunHistoryContractSubject {
  readonly history: RunHistory;
  /** Removes what the suite wrote. */
  cleanup(): Promise<void>;
}

function startOf(extra: Partial<RunStart> = {}): RunStart {
  return {
    id: uniqueName("run"),
    table: "orders",
    mode: "cleanup",
    dataset: "archive",
    startedAt: "2024-06-01T10:00:00.000Z",
    ...extra,
  };
}

const at = (minute: number) => `2024-06-01T10:${String(minute).padStart(2, "0")}:00.000Z`;
const key = (day: string, kind = "clean") => `${kind}:orders:2024-01-${day}`;

/**
 * The behaviour every RunHistory adapter must have (see ports/run-history.ts):
 * tasks counted once each, the finished record answered exactly once, by
 * whichever call sees the last queued task end, begin before or after the
 * tasks, tasks queued by a task included.
 */
export function describeRunHistoryContract(
  name: string,
  setup: () => Promise<RunHistoryContractSubject>,
): void {
  describe(`RunHistory contract: ${name}`, () => {
    let subject: RunHistoryContractSubject;
    const history = () => subject.history;
    const ended = (runId: string, day: string, minute: number, counts = {}) =>
      history().taskEnded(runId, { task: key(day), endedAt: at(minute), counts });
    beforeAll(async () => {
      subject = await setup();
    });
    afterAll(async () => {
      await subject?.cleanup();
    });

    it("finishes a run that queued nothing at once, with what it counted up front", async () => {
      const start = startOf({ dryRun: true, policy: "orders" });
      const record = await history().begin(start, [], { ...NO_COUNTS, cleaned: 4, refused: 1 }, at(2));
      expect(record).toEqual({
        ...start,
        ...NO_COUNTS,
        cleaned: 4,
        refused: 1,
        queued: 0,
        endedAt: at(2),
        result: "partial",
      });
    });

    it("answers the record once, when the last queued task ends, with the tasks' counts added up", async () => {
      const start = startOf({ mode: "migration" });
      expect(
        await history().begin(start, [key("01"), key("02"), key("03")], NO_COUNTS, at(1)),
      ).toBeUndefined();
      const copied = (day: string, rows: number, minute: number) =>
        ended(start.id, day, minute, { copied: 1, rows, waitedMsByReason: { rateCap: 100 } });
      expect(await copied("01", 10, 5)).toBeUndefined();
      expect(await copied("03", 5, 9)).toBeUndefined();
      const record = await copied("02", 20, 7);
      expect(record).toMatchObject({
        id: start.id,
        mode: "migration",
        queued: 3,
        copied: 3,
        rows: 35,
        failed: 0,
        waitedMsByReason: { rateCap: 300 },
        endedAt: at(9),
        result: "succeeded",
      });
      // A later report of any task, ended before or not, finishes nothing again.
      expect(await copied("02", 20, 10)).toBeUndefined();
      expect(await copied("04", 1, 11)).toBeUndefined();
    });

    it("counts a task reported ended twice once", async () => {
      const start = startOf();
      await history().begin(start, [key("01"), key("02")], NO_COUNTS, at(1));
      expect(await ended(start.id, "01", 3, { failed: 1 })).toBeUndefined();
      // A second delivery of the same task: not the run's second task, and its counts are not added.
      expect(await ended(start.id, "01", 3, { cleaned: 1, rows: 9 })).toBeUndefined();
      const record = await ended(start.id, "02", 4, { refused: 1 });
      expect(record).toMatchObject({
        queued: 2,
        cleaned: 0,
        failed: 1,
        refused: 1,
        rows: 0,
        result: "failed",
      });
    });

    it("counts tasks that end before their run begins, and finishes at the begin", async () => {
      const start = startOf();
      expect(await ended(start.id, "01", 2, { deferred: 1 })).toBeUndefined();
      expect(await ended(start.id, "02", 2, { deferred: 1 })).toBeUndefined();
      const record = await history().begin(
        start,
        [key("01"), key("02")],
        { ...NO_COUNTS, refused: 1 },
        at(1),
      );
      expect(record).toMatchObject({ queued: 2, deferred: 2, refused: 1, endedAt: at(2), result: "partial" });
    });

    it("waits for the tasks a task queued, however often that task ran", async () => {
      const start = startOf();
      await history().begin(start, [key("01")], NO_COUNTS, at(1));
      // The partition's task queues its days 02 and 03, fails, runs again and queues them again.
      expect(await history().queuedMore(start.id, [key("02"), key("03")])).toBeUndefined();
      expect(await ended(start.id, "02", 3, { cleaned: 1 })).toBeUndefined();
      expect(await history().queuedMore(start.id, [key("02"), key("03")])).toBeUndefined();
      expect(await ended(start.id, "01", 4, { cleaned: 1 })).toBeUndefined();
      const record = await ended(start.id, "03", 5, { cleaned: 1 });
      expect(record).toMatchObject({ queued: 3, cleaned: 3, endedAt: at(5), result: "succeeded" });
    });

    it("keeps runs apart, and answers one finish among tasks ending at once", async () => {
      const one = startOf();
      const other = startOf();
      const days = ["01", "02", "03", "04", "05"];
      await history().begin(
        one,
        days.map((day) => key(day)),
        NO_COUNTS,
        at(1),
      );
      await history().begin(other, [key("01")], NO_COUNTS, at(1));
      const ends = await Promise.all(
        [...days, "05", "04"].map((day) => ended(one.id, day, 3, { cleaned: 1 })),
      );
      expect(ends.filter(Boolean)).toHaveLength(1);
      expect(ends.find(Boolean)).toMatchObject({ id: one.id, cleaned: 5, queued: 5 });
      const last = await ended(other.id, "01", 4);
      expect(last).toMatchObject({ id: other.id, cleaned: 0, queued: 1, result: "succeeded" });
    });

    it("lists the open runs of a table and mode, with their last news and unended tasks", async () => {
      const table = uniqueName("listed");
      const open = startOf({ table });
      const done = startOf({ table });
      await history().begin(open, [key("01"), key("02"), key("03")], NO_COUNTS, at(1));
      await history().begin(done, [key("01")], NO_COUNTS, at(1));
      await history().begin(startOf({ table, mode: "migration" }), [key("01")], NO_COUNTS, at(1));
      await history().begin(startOf({ table: uniqueName("other") }), [key("01")], NO_COUNTS, at(1));
      // Ended, but not begun: not open yet.
      await history().taskEnded(uniqueName("run"), { task: key("01"), endedAt: at(2), counts: {} });
      await history().taskEnded(open.id, { task: key("02"), endedAt: at(6), counts: { cleaned: 1 } });
      await history().taskEnded(open.id, { task: key("01"), endedAt: at(4), counts: { cleaned: 1 } });
      expect(
        await history().taskEnded(done.id, { task: key("01"), endedAt: at(3), counts: {} }),
      ).toBeDefined();

      expect(await history().openRuns(table, "cleanup")).toEqual([
        { start: open, lastNewsAt: at(6), unended: [key("03")] },
      ]);
      expect(await history().openRuns(uniqueName("none"), "cleanup")).toEqual([]);
      // Once it finishes, it is no longer listed.
      await history().taskEnded(open.id, { task: key("03"), endedAt: at(7), counts: { failed: 1 } });
      expect(await history().openRuns(table, "cleanup")).toEqual([]);
    });

    it("does not list a run that finished as it began", async () => {
      const table = uniqueName("listed");
      await history().begin(startOf({ table }), [], NO_COUNTS, at(1));
      expect(await history().openRuns(table, "cleanup")).toEqual([]);
    });
  });
}
