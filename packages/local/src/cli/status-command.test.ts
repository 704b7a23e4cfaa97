import { describe, expect, it } from "vitest";
import { type Status, statusLines } from "./status-command";

const queue = (tasks: number) => ({ name: "jobs-migration", tasks });

describe("status as text", () => {
  it("shows each table's migrated and cleaned days", () => {
    const status: Status = {
      queue: queue(0),
      tables: [
        {
          table: "orders",
          migratedDays: 365,
          firstDay: "2024-01-01",
          lastDay: "2024-12-30",
          cleanedDays: 1200,
        },
        { table: "payments", migratedDays: 2, firstDay: "2024-01-01", lastDay: "2024-01-02", cleanedDays: 0 },
      ],
      detachedTwins: [],
    };
    expect(statusLines(status)).toEqual([
      "queue jobs-migration: 0 tasks (finished)",
      "orders: 365 days migrated (2024-01-01 .. 2024-12-30), 1,200 cleaned",
      "payments: 2 days migrated (2024-01-01 .. 2024-01-02), 0 cleaned",
    ]);
  });

  it("says one day and one task in the singular", () => {
    const status: Status = {
      queue: queue(1),
      tables: [
        { table: "orders", migratedDays: 1, firstDay: "2024-07-27", lastDay: "2024-07-27", cleanedDays: 1 },
      ],
      detachedTwins: [],
    };
    expect(statusLines(status)).toEqual([
      "queue jobs-migration: 1 task",
      "orders: 1 day migrated (2024-07-27), 1 cleaned",
    ]);
  });

  it("says when nothing has been migrated", () => {
    expect(statusLines({ queue: queue(3), tables: [], detachedTwins: [] })).toEqual([
      "queue jobs-migration: 3 tasks",
      "no migrated tables yet",
    ]);
  });

  it("lists a partition an interrupted cleanup left detached, and says when MySQL could not be asked", () => {
    const twin = { table: "events", partition: "p2024_01", twin: "archiver_twin__events__p2024_01", rows: 1 };
    expect(statusLines({ queue: queue(0), tables: [], detachedTwins: [twin] }).at(-1)).toBe(
      "events: partition p2024_01 detached into archiver_twin__events__p2024_01 (1 row); " +
        "an interrupted cleanup: the next cleanup of the table verifies it, then drops it or puts its rows back",
    );
    expect(
      statusLines({ queue: queue(0), tables: [], detachedTwins: "not checked: connect ECONNREFUSED" }).at(-1),
    ).toBe("detached partitions: not checked: connect ECONNREFUSED");
  });
});
