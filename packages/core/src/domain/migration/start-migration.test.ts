import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidInputError } from "../../errors";
import { addDays } from "../../model/calendar-day";
import {
  createMemoryFixture,
  event,
  eventsAt,
  eventsSchema,
  type MemoryFixture,
} from "../../testing/memory-fixture";
import { copyDay } from "../copy/copy-day";
import type { MigrationMessage } from "../messages/migration-message";
import { parseMessage } from "../messages/parse-message";
import { startMigration } from "./start-migration";

// startMigration on the in-memory source, ledger and queue; start-migration.mysql.test.ts
// runs it against MariaDB and Redis. "Today" is 2026-06-01 (UTC): one year back, the cutoff is 2025-06-01.

let fx: MemoryFixture;
beforeEach(async () => {
  fx = await createMemoryFixture();
});
afterEach(async () => {
  await fx.close();
});

function message(tables: string[], extra: Partial<MigrationMessage> = {}): MigrationMessage {
  const parsed = parseMessage({
    years_to_migrate: 1,
    months_to_migrate: 0,
    source_tables: tables,
    destination_tables: tables.map((table) => `${table}_archive`),
    filter_columns: tables.map(() => "created_at"),
    ...extra,
  });
  if (parsed.mode !== "migration") throw new Error("not a migration message");
  return parsed.message;
}

/** A table `name` with one row at each of `times`. */
function table(name: string, times: readonly string[], options: { indexed?: boolean } = {}): string {
  fx.source.createTable(eventsSchema(name, options), eventsAt(times));
  return name;
}

const plan = async (tables: string[], extra: Partial<MigrationMessage> = {}) =>
  startMigration(fx.migrationDeps(), message(tables, extra));
const queued = async (name: string) => [...(await fx.queue.queuedDays("copy", name))].sort();

describe("startMigration planning", () => {
  it("enqueues the oldest days, at most the limit, and continues on the next run", async () => {
    const days = [
      "2024-01-01",
      "2024-01-02",
      "2024-01-05",
      "2024-02-01",
      "2024-03-10",
      "2024-03-11",
      "2025-05-31",
    ];
    table(
      "events",
      days.map((day) => `${day} 10:00:00`),
    );

    const [first] = await plan(["events"], { tasks_enqueued_limit: 3 });
    expect(first).toMatchObject({ table: "events", cutoff: "2025-06-01", added: 3, alreadyQueued: 0 });
    expect(first?.days).toEqual(["2024-01-01", "2024-01-02", "2024-01-05"]);
    expect(fx.queue.tasks()[0]).toEqual({
      kind: "copy",
      table: "events",
      destination: "events_archive",
      filterColumn: "created_at",
      day: "2024-01-01",
    });

    expect((await plan(["events"], { tasks_enqueued_limit: 3 }))[0]?.days).toEqual([
      "2024-02-01",
      "2024-03-10",
      "2024-03-11",
    ]);
    expect((await plan(["events"], { tasks_enqueued_limit: 3 }))[0]?.days).toEqual(["2025-05-31"]);
    expect((await plan(["events"], { tasks_enqueued_limit: 3 }))[0]?.days).toEqual([]);
    expect(await queued("events")).toEqual(days);
  });

  it("gives every copy task the message's rate cap", async () => {
    table("capped", ["2024-01-01 10:00:00", "2024-01-02 10:00:00"]);
    await plan(["capped"], { max_rows_per_second: 500 });
    expect(fx.queue.tasks().map((task) => task.kind === "copy" && [task.day, task.maxRowsPerSecond])).toEqual(
      [
        ["2024-01-01", 500],
        ["2024-01-02", 500],
      ],
    );
  });

  it("never plans the cutoff day, and takes the whole last day before it", async () => {
    table("events", ["2025-05-31 23:59:59.999999", "2025-06-01 00:00:00", "2026-01-01 00:00:00"]);
    expect((await plan(["events"], { tasks_enqueued_limit: 100 }))[0]?.days).toEqual(["2025-05-31"]);
  });

  it("skips days already migrated", async () => {
    table("events", ["2025-01-01 01:00:00", "2025-01-02 01:00:00", "2025-01-03 01:00:00"]);
    await copyDay(fx.copyDeps(), {
      kind: "copy",
      table: "events",
      destination: "events_archive",
      filterColumn: "created_at",
      day: "2025-01-02",
    });
    expect((await plan(["events"], { tasks_enqueued_limit: 10 }))[0]?.days).toEqual([
      "2025-01-01",
      "2025-01-03",
    ]);
  });

  it("says which days of the range were already migrated to another destination, in the plan and its log line", async () => {
    table("events", ["2025-01-01 01:00:00", "2025-01-02 01:00:00", "2025-01-03 01:00:00"]);
    for (const day of ["2025-01-01", "2025-01-02"]) {
      await copyDay(fx.copyDeps(), {
        kind: "copy",
        table: "events",
        destination: "events_archive",
        filterColumn: "created_at",
        day,
      });
    }
    const [elsewhere] = await plan(["events"], {
      destination_tables: ["archive.events_new"],
      tasks_enqueued_limit: 10,
    });
    expect(elsewhere).toMatchObject({
      destination: "archive.events_new",
      days: ["2025-01-03"],
      migratedElsewhere: 2,
      otherDestinations: ["events_archive"],
    });
    expect(fx.logged(/planned migration days/).at(-1)).toMatchObject({
      migratedElsewhere: 2,
      otherDestinations: ["events_archive"],
    });

    // The same destination, however it is written, is no other one.
    const [same] = await plan(["events"], { destination_tables: ["ARCHIVE.events_archive"] });
    expect(same).toMatchObject({ migratedElsewhere: 0, otherDestinations: [] });
    expect(fx.logged(/planned migration days/).at(-1)).not.toHaveProperty("migratedElsewhere");
  });

  it("selects whole days from the day of min_date_limit_iso on", async () => {
    table("events", ["2025-03-01 23:00:00", "2025-03-02 00:00:00", "2025-03-03 12:00:00"]);
    const [result] = await plan(["events"], {
      min_date_limit_iso: "2025-03-02T18:30:00",
      tasks_enqueued_limit: 10,
    });
    expect(result?.days).toEqual(["2025-03-02", "2025-03-03"]);
  });

  it("ignores rows whose filter column is NULL or a zero date", async () => {
    table("events", ["2024-06-01 00:00:00", "2024-12-31 12:00:00"]);
    fx.source.insertRows("events", [
      event(3, null),
      event(4, "0000-00-00 00:00:00"),
      event(5, "2024-07-00 10:00:00"),
    ]);
    expect((await plan(["events"], { tasks_enqueued_limit: 5 }))[0]?.days).toEqual([
      "2024-06-01",
      "2024-12-31",
    ]);
  });

  it("finds days far apart, over many probe windows", async () => {
    const days = Array.from({ length: 40 }, (_, i) => addDays("2020-01-01", i * 17));
    table(
      "events",
      days.map((day) => `${day} 08:00:00`),
    );
    expect((await plan(["events"], { tasks_enqueued_limit: 1000 }))[0]?.days).toEqual(days);
  });

  it("plans nothing for an empty table", async () => {
    table("events", []);
    expect((await plan(["events"]))[0]?.days).toEqual([]);
    expect(await fx.queue.count()).toBe(0);
  });

  it("plans several tables in one message, each with its own limit", async () => {
    table("a", ["2025-01-01 01:00:00", "2025-01-02 01:00:00", "2025-01-03 01:00:00"]);
    table("b", ["2024-05-05 05:00:00", "2024-05-07 05:00:00"]);
    const plans = await plan(["a", "b"], { tasks_enqueued_limit: 2 });
    expect(plans.map((p) => [p.table, p.days])).toEqual([
      ["a", ["2025-01-01", "2025-01-02"]],
      ["b", ["2024-05-05", "2024-05-07"]],
    ]);
    expect(await fx.queue.count()).toBe(4);
  });

  it("warns when the filter column leads no index", async () => {
    table("events", ["2025-01-01 01:00:00"], { indexed: false });
    await plan(["events"]);
    expect(fx.logged(/index/)).toMatchObject([
      { severity: "WARNING", table: "events", column: "created_at" },
    ]);
  });

  it("has planned every day once the queued copies ran", async () => {
    const days = ["2024-01-01", "2024-01-03", "2024-02-01", "2024-02-02", "2025-05-31"];
    table(
      "events",
      days.map((day) => `${day} 10:00:00`),
    );
    await plan(["events"], { tasks_enqueued_limit: 3 });
    await fx.queue.runAll(async (task) => {
      if (task.kind === "copy") await copyDay(fx.copyDeps(), task);
    });
    expect((await plan(["events"], { tasks_enqueued_limit: 3 }))[0]?.days).toEqual([
      "2024-02-02",
      "2025-05-31",
    ]);
    await fx.queue.runAll(async (task) => {
      if (task.kind === "copy") await copyDay(fx.copyDeps(), task);
    });

    expect(await fx.ledger.migratedDays("events")).toEqual(days);
    expect((await plan(["events"], { tasks_enqueued_limit: 3 }))[0]?.days).toEqual([]);
    expect(await fx.warehouse.countRows({ dataset: "archive", table: "events_archive" })).toBe(5);
  });
});

describe("startMigration validation", () => {
  it.each([
    ["a missing table", (good: string) => ({ source_tables: [good, "no_such_table"] }), "source_tables[1]"],
    ["a missing column", () => ({ filter_columns: ["created_at", "nope"] }), "filter_columns[1]"],
    ["a DATE column", () => ({ filter_columns: ["created_at", "shipped"] }), "filter_columns[1]"],
    ["a TIMESTAMP column", () => ({ filter_columns: ["created_at", "changed"] }), "filter_columns[1]"],
    ["a VARCHAR column", () => ({ filter_columns: ["created_at", "note"] }), "filter_columns[1]"],
    ["a bad destination", () => ({ destination_tables: ["ok", "bad-name!"] }), "destination_tables[1]"],
    [
      "a destination with a project",
      () => ({ destination_tables: ["ok", "p.ds.t"] }),
      "destination_tables[1]",
    ],
    [
      "an injection attempt",
      (good: string) => ({ source_tables: [good, "x`; DROP TABLE y; --"] }),
      "source_tables[1]",
    ],
  ])("rejects %s, names the field and enqueues nothing for any table", async (_case, change, field) => {
    const good = table("good", ["2025-01-01 01:00:00"]);
    const other = table("other", ["2025-01-01 01:00:00"]);
    const error = await startMigration(fx.migrationDeps(), {
      ...message([good, other]),
      ...change(good),
    } as MigrationMessage).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).field).toBe(field);
    expect(await fx.queue.count()).toBe(0);
  });

  it("names the column's real type", async () => {
    table("events", []);
    const error = await startMigration(fx.migrationDeps(), {
      ...message(["events"]),
      filter_columns: ["shipped"],
    }).catch((e: unknown) => e);
    expect((error as Error).message).toContain("DATE");
  });
});
