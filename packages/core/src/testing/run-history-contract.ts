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

/**
 * The behaviour every RunHistory adapter must have (see ports/run-history.ts):
 * tasks counted once each, the finished record answered exactly once, by
 * whichever call sees the last task end, begin before or after the tasks.
 */
export function describeRunHistoryContract(
  name: string,
  setup: () => Promise<RunHistoryContractSubject>,
): void {
  describe(`RunHistory contract: ${name}`, () => {
    let subject: RunHistoryContractSubject;
    const history = () => subject.history;
    beforeAll(async () => {
      subject = await setup();
    });
    afterAll(async () => {
      await subject?.cleanup();
    });

    it("finishes a run that queued nothing at once, with what it counted up front", async () => {
      const start = startOf({ dryRun: true, policy: "orders" });
      const record = await history().begin(start, 0, { ...NO_COUNTS, cleaned: 4, refused: 1 }, at(2));
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
      expect(await history().begin(start, 3, NO_COUNTS, at(1))).toBeUndefined();
      const copied = (day: string, rows: number, minute: number) =>
        history().taskEnded(start.id, {
          task: `copy:orders:${day}`,
          endedAt: at(minute),
          counts: { copied: 1, rows, waitedMsByReason: { rateCap: 100 } },
        });
      expect(await copied("2024-01-01", 10, 5)).toBeUndefined();
      expect(await copied("2024-01-03", 5, 9)).toBeUndefined();
      const record = await copied("2024-01-02", 20, 7);
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
      // A later report of any task, new or not, finishes nothing again.
      expect(await copied("2024-01-02", 20, 10)).toBeUndefined();
      expect(await copied("2024-01-04", 1, 11)).toBeUndefined();
    });

    it("counts a task reported ended twice once", async () => {
      const start = startOf();
      await history().begin(start, 2, NO_COUNTS, at(1));
      const end = { task: "clean:orders:2024-01-01", endedAt: at(3), counts: { failed: 1 } };
      expect(await history().taskEnded(start.id, end)).toBeUndefined();
      // A second delivery of the same task: not the run's second task.
      expect(
        await history().taskEnded(start.id, { ...end, counts: { cleaned: 1, rows: 9 } }),
      ).toBeUndefined();
      const record = await history().taskEnded(start.id, {
        task: "clean:orders:2024-01-02",
        endedAt: at(4),
        counts: { refused: 1 },
      });
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
      const end = (day: string) => ({ task: `clean:orders:${day}`, endedAt: at(2), counts: { deferred: 1 } });
      expect(await history().taskEnded(start.id, end("2024-01-01"))).toBeUndefined();
      expect(await history().taskEnded(start.id, end("2024-01-02"))).toBeUndefined();
      const record = await history().begin(start, 2, { ...NO_COUNTS, refused: 1 }, at(1));
      expect(record).toMatchObject({ queued: 2, deferred: 2, refused: 1, endedAt: at(2), result: "partial" });
    });

    it("keeps runs apart, and answers one finish among tasks ending at once", async () => {
      const one = startOf();
      const other = startOf();
      await history().begin(one, 5, NO_COUNTS, at(1));
      await history().begin(other, 1, NO_COUNTS, at(1));
      const ends = await Promise.all(
        ["01", "02", "03", "04", "05", "05", "04"].map((day) =>
          history().taskEnded(one.id, {
            task: `clean:orders:2024-01-${day}`,
            endedAt: at(3),
            counts: { cleaned: 1 },
          }),
        ),
      );
      expect(ends.filter(Boolean)).toHaveLength(1);
      expect(ends.find(Boolean)).toMatchObject({ id: one.id, cleaned: 5 });
      const last = await history().taskEnded(other.id, {
        task: "clean:orders:2024-01-01",
        endedAt: at(4),
        counts: {},
      });
      expect(last).toMatchObject({ id: other.id, cleaned: 0, result: "succeeded" });
    });
  });
}
