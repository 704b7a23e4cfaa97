import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidInputError, RefusalError } from "../../errors";
import { failAfter } from "../../testing/day-deleter-faults";
import { sourceColumn } from "../../testing/fakes/source-column";
import {
  cleanTask,
  copyTask,
  createMemoryFixture,
  event,
  eventsSchema,
  type MemoryFixture,
  rowsOnDays,
} from "../../testing/memory-fixture";
import type { CleanupMessage } from "../messages/cleanup-message";
import { parseMessage } from "../messages/parse-message";
import { cleanDay } from "./day/clean-day";
import { startCleanup } from "./start-cleanup";

// startCleanup on the in-memory fakes; start-cleanup.mysql.test.ts runs it against MariaDB and Redis.

let fx: MemoryFixture;
beforeEach(async () => {
  fx = await createMemoryFixture();
  await migratedTable();
});
afterEach(async () => {
  await fx.close();
});

const DAYS = ["2024-01-01", "2024-01-02"];

/** `orders` (eventsSchema and a DATETIME `updated_at`): three days of 3 rows, the first two migrated. */
async function migratedTable(): Promise<void> {
  const schema = eventsSchema("orders");
  fx.source.createTable(
    { ...schema, columns: [...schema.columns, sourceColumn("updated_at", "datetime")] },
    rowsOnDays([...DAYS, "2024-01-03"], 3).map((row) => [...row, null]),
  );
  for (const day of DAYS) await fx.copy("orders", day);
}

function message(extra: Partial<CleanupMessage> = {}): CleanupMessage {
  const parsed = parseMessage({ clean_table: "orders", filter_column: "created_at", ...extra });
  if (parsed.mode !== "cleanup") throw new Error("expected a cleanup message");
  return parsed.message;
}

/** Everything cleanup could change: the table's rows, the queue, the cleanup bookkeeping. */
async function snapshot() {
  return {
    ids: fx.ids("orders"),
    queued: fx.queue.tasks(),
    states: await Promise.all(DAYS.map((day) => fx.state.read({ table: "orders", day }))),
    cleaned: await fx.state.cleanedDays("orders"),
    migrated: await fx.ledger.migratedDays("orders"),
  };
}

describe("startCleanup dry run", () => {
  it("is the default: logs each day's rows and statement and a total, and changes nothing", async () => {
    const before = await snapshot();
    const summary = await startCleanup(fx.cleanupDeps(), message());

    expect(summary).toMatchObject({
      dryRun: true,
      migratedDays: 2,
      verified: 2,
      refused: 0,
      rowsToDelete: 6,
    });
    expect(await snapshot()).toEqual(before);
    const days = fx.logged(/^cleanup dry run: day verified$/);
    expect(days.map((line) => [line.day, line.rowsToDelete])).toEqual([
      ["2024-01-01", 3],
      ["2024-01-02", 3],
    ]);
    expect(days[0]?.statement).toBe(
      "DELETE FROM `orders` WHERE `created_at` >= '2024-01-01 00:00:00' AND `created_at` < '2024-01-02 00:00:00' AND `id` BETWEEN 1 AND 3",
    );
    expect(fx.logged(/^cleanup dry run: nothing was deleted$/)).toMatchObject([{ rowsToDelete: 6 }]);
  });

  it("reports a disagreeing day with both figures, and changes nothing", async () => {
    fx.source.insertRows("orders", [[...event(99, "2024-01-02 10:00:00"), null]]);
    const before = await snapshot();

    const summary = await startCleanup(fx.cleanupDeps(), message());

    expect(summary).toMatchObject({ verified: 1, refused: 1, rowsToDelete: 3 });
    expect(summary.refusals).toMatchObject([{ day: "2024-01-02", refusal: "changed" }]);
    expect(summary.refusals[0]?.reason).toMatch(/source 4 rows.*warehouse 3 rows/);
    expect(await snapshot()).toEqual(before);
  });

  it("counts a day an earlier run part-deleted as resuming, with the rows it has left", async () => {
    const killed = failAfter(fx.deleter, 2);
    const deps = fx.cleanupDeps({ deleter: killed, settings: { chunkRows: 1 } });
    await expect(cleanDay(deps, cleanTask("orders", "2024-01-01"))).rejects.toThrow("killed");

    const summary = await startCleanup(fx.cleanupDeps(), message());

    expect(summary).toMatchObject({ verified: 1, resuming: 1, refused: 0, rowsToDelete: 3 + 2 });
    expect(fx.logged(/would resume deleting/)).toMatchObject([{ day: "2024-01-01", rowsToDelete: 2 }]);
  });
});

describe("startCleanup", () => {
  it("queues one task per migrated day not yet cleaned; the tasks delete those days only", async () => {
    const flags = { dry_run: false, recopy_changed_days: true };
    const summary = await startCleanup(fx.cleanupDeps(), message(flags));
    expect(summary).toMatchObject({ dryRun: false, migratedDays: 2, enqueued: 2, alreadyQueued: 0 });
    expect(fx.queue.tasks()).toEqual(
      DAYS.map((day) => ({ ...cleanTask("orders", day), recopyChangedDays: true })),
    );
    expect(await startCleanup(fx.cleanupDeps(), message(flags))).toMatchObject({
      enqueued: 0,
      alreadyQueued: 2,
    });

    await fx.queue.runAll(async (task) => task.kind === "clean" && cleanDay(fx.cleanupDeps(), task));

    expect(fx.ids("orders")).toEqual(["7", "8", "9"]);
    expect(await fx.ledger.migratedDays("orders")).toEqual(DAYS);
    expect(await fx.state.cleanedDays("orders")).toEqual(DAYS);
    expect(await startCleanup(fx.cleanupDeps(), message(flags))).toMatchObject({
      alreadyCleaned: 2,
      enqueued: 0,
    });
  });

  it("says once, not per day, when the warehouse lacks the table the days were copied to", async () => {
    for (const day of DAYS) {
      const record = await fx.ledger.copiedDay("orders", day);
      if (!record) throw new Error("no record");
      await fx.ledger.recordCopiedDay("orders", { ...record, destination: "elsewhere.orders_copy" });
    }
    const before = await snapshot();

    const error = await startCleanup(fx.cleanupDeps(), message()).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(RefusalError);
    expect(error).toMatchObject({ reason: "warehouse", field: "clean_table" });
    expect((error as Error).message).toMatch(
      /has no table elsewhere\.orders_copy, where its days were copied/,
    );
    expect(fx.logged(/refused/)).toEqual([]);
    expect(await snapshot()).toEqual(before);
  });

  it("refuses while copy tasks for the table are queued, and says how many", async () => {
    await fx.queue.enqueue([copyTask("orders", "2024-01-03")]);
    const before = await snapshot();

    const error = await startCleanup(fx.cleanupDeps(), message({ dry_run: false })).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(RefusalError);
    expect(error).toMatchObject({ field: "clean_table", reason: "queued" });
    expect(await snapshot()).toEqual(before);
    expect(fx.logged(/still queued/)).toMatchObject([{ copyTasksQueued: 1 }]);
  });

  it("refuses a table with DELETE triggers unless the message allows them", async () => {
    fx.deleter.setSideEffects("orders", { referencingKeys: [], deleteTriggers: ["audit"] });
    const error = await startCleanup(fx.cleanupDeps(), message()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ field: "allow_delete_triggers" });

    const allowed = await startCleanup(
      fx.cleanupDeps(),
      message({ dry_run: false, allow_delete_triggers: true }),
    );
    expect(allowed.enqueued).toBe(2);
    expect(fx.queue.tasks()[0]).toMatchObject({ allowDeleteTriggers: true });
  });

  it.each([
    ["a missing table", { clean_table: "no_such_table" }, "clean_table"],
    ["a bad table name", { clean_table: "x`; DROP TABLE y" }, "clean_table"],
    ["a missing column", { filter_column: "nope" }, "filter_column"],
    ["a column that is not DATETIME", { filter_column: "shipped" }, "filter_column"],
    ["a DATETIME column the table was not migrated by", { filter_column: "updated_at" }, "filter_column"],
  ])("rejects %s naming the field, and changes nothing", async (_name, change, field) => {
    const before = await snapshot();
    const error = await startCleanup(fx.cleanupDeps(), message({ dry_run: false, ...change })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ field });
    expect(await snapshot()).toEqual(before);
  });
});
