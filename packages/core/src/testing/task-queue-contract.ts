import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { addDays, type CalendarDay } from "../model/calendar-day";
import type { CleanDayTask, CopyDayTask } from "../model/task";
import type { TaskQueue } from "../ports/task-queue";

export interface TaskQueueContractSubject {
  /** A queue with nothing in it, not shared with any other test. */
  readonly queue: TaskQueue;
  /** Closes the queue and removes what the test left behind. */
  cleanup(): Promise<void>;
}

const copy = (table: string, day: CalendarDay): CopyDayTask => ({
  kind: "copy",
  table,
  destination: `archive.${table}`,
  filterColumn: "created_at",
  day,
});
const clean = (table: string, day: CalendarDay): CleanDayTask => ({
  kind: "clean",
  table,
  filterColumn: "created_at",
  day,
});
const days = (first: CalendarDay, count: number) =>
  Array.from({ length: count }, (_, i) => addDays(first, i));

/**
 * The behaviour every TaskQueue adapter must show (see the port's doc comment).
 * Each adapter's test file calls this with a `setup` that makes a fresh, empty
 * queue per test.
 */
export function describeTaskQueueContract(
  name: string,
  setup: () => Promise<TaskQueueContractSubject>,
): void {
  describe(`TaskQueue contract: ${name}`, () => {
    let subject: TaskQueueContractSubject;
    let queue: TaskQueue;

    beforeEach(async () => {
      subject = await setup();
      queue = subject.queue;
    });
    afterEach(async () => {
      await subject.cleanup();
    });

    it('is named "jobs-migration"', () => {
      expect(queue.name).toBe("jobs-migration");
    });

    it("counts every task it adds", async () => {
      const tasks = days("2020-01-30", 7).map((day) => copy("orders", day));
      expect(await queue.enqueue(tasks)).toEqual({ added: 7, alreadyQueued: 0 });
      expect(await queue.count()).toBe(7);
    });

    it("recognises a task that is already queued instead of adding it twice", async () => {
      await queue.enqueue(days("2020-02-27", 3).map((day) => copy("orders", day)));

      const again = [
        copy("orders", "2020-02-27"),
        copy("orders", "2020-02-29"),
        copy("orders", "2020-03-01"),
      ];
      expect(await queue.enqueue(again)).toEqual({ added: 1, alreadyQueued: 2 });
      expect(await queue.count()).toBe(4);

      // Identity is (kind, table, day): another destination or a repeat inside one call changes nothing.
      const sameKey = { ...copy("orders", "2020-02-28"), destination: "elsewhere.orders" };
      const repeated = [copy("orders", "2020-03-02"), copy("orders", "2020-03-02")];
      expect(await queue.enqueue([sameKey, ...repeated])).toEqual({ added: 1, alreadyQueued: 2 });
      expect(await queue.count()).toBe(5);
    });

    it("reports queued days per kind and table without mixing them", async () => {
      await queue.enqueue([
        copy("orders", "2021-05-02"),
        copy("orders", "2021-05-01"),
        copy("events", "2021-05-01"),
        clean("orders", "2021-04-30"),
      ]);

      expect([...(await queue.queuedDays("copy", "orders"))].sort()).toEqual(["2021-05-01", "2021-05-02"]);
      expect([...(await queue.queuedDays("copy", "events"))]).toEqual(["2021-05-01"]);
      expect([...(await queue.queuedDays("clean", "orders"))]).toEqual(["2021-04-30"]);
      expect((await queue.queuedDays("clean", "events")).size).toBe(0);
      expect((await queue.queuedDays("copy", "audit_log")).size).toBe(0);
    });

    it("treats an empty enqueue as a no-op", async () => {
      expect(await queue.enqueue([])).toEqual({ added: 0, alreadyQueued: 0 });
      expect(await queue.count()).toBe(0);
    });
  });
}
