import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidInputError, RefusalError } from "../../errors";
import { type CleanupFixture, createCleanupFixture } from "../../testing/cleanup-fixture";
import { uniqueName } from "../../testing/test-services";
import { parseMessage } from "../messages/parse-message";
import { cleanDay } from "./day/clean-day";
import { startCleanup } from "./start-cleanup";

let fx: CleanupFixture;

beforeAll(async () => {
  fx = await createCleanupFixture();
});

afterAll(async () => {
  await fx?.close();
});

/** Three days of rows; the first two migrated by the real copy task. */
async function migratedTable(): Promise<string> {
  const table = uniqueName("orders");
  await fx.query(
    `CREATE TABLE \`${table}\` (
       id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
       created_at DATETIME(6) NOT NULL,
       updated_at DATETIME NULL,
       qty INT NOT NULL,
       KEY (created_at)
     )`,
  );
  for (const day of ["2024-01-01", "2024-01-02", "2024-01-03"]) {
    for (let hour = 0; hour < 3; hour++) {
      await fx.query(`INSERT INTO \`${table}\` (created_at, qty) VALUES (?, ?)`, [
        `${day} 0${hour}:00:00`,
        hour,
      ]);
    }
  }
  await fx.copy(table, "2024-01-01");
  await fx.copy(table, "2024-01-02");
  return table;
}

/** Everything cleanup could change: the table's rows, the queue, the cleanup bookkeeping. */
async function snapshot(table: string) {
  return {
    ids: await fx.ids(table),
    queued: await fx.queue.count(),
    state: await fx.stateKeys(),
    migrated: await fx.ledger.migratedDays(table),
  };
}

const message = (table: string, extra: Record<string, unknown> = {}) =>
  ({
    clean_table: table,
    filter_column: "created_at",
    dry_run: true,
    recopy_changed_days: false,
    allow_delete_triggers: false,
    exchange_partitions: true,
    ...extra,
  }) as const;

describe("startCleanup on real MariaDB, Redis and DuckDB", () => {
  it("a dry run (the default) logs each day's rows and statement and a total, and changes nothing", async () => {
    const table = await migratedTable();
    const before = await snapshot(table);
    const parsed = parseMessage({ clean_table: table, filter_column: "created_at" });
    if (parsed.mode !== "cleanup") throw new Error("expected a cleanup message");
    expect(parsed.message.dry_run).toBe(true);

    const summary = await startCleanup(fx.deps(), parsed.message);

    expect(summary).toMatchObject({
      dryRun: true,
      migratedDays: 2,
      verified: 2,
      refused: 0,
      rowsToDelete: 6,
    });
    expect(await snapshot(table)).toEqual(before);
    const days = fx.logs.filter((l) => l.message === "cleanup dry run: day verified" && l.table === table);
    expect(days.map((l) => [l.day, l.rowsToDelete])).toEqual([
      ["2024-01-01", 3],
      ["2024-01-02", 3],
    ]);
    expect(days[0]?.statement).toBe(
      `DELETE FROM \`${table}\` WHERE \`created_at\` >= '2024-01-01 00:00:00' AND \`created_at\` < '2024-01-02 00:00:00' AND \`id\` BETWEEN 1 AND 3`,
    );
    expect(
      fx.logs.some((l) => l.message === "cleanup dry run: nothing was deleted" && l.rowsToDelete === 6),
    ).toBe(true);
  });

  it("a dry run reports a disagreeing day with both figures", async () => {
    const table = await migratedTable();
    await fx.query(`INSERT INTO \`${table}\` (created_at, qty) VALUES ('2024-01-02 10:00:00', 1)`);
    const before = await snapshot(table);

    const summary = await startCleanup(fx.deps(), message(table));

    expect(summary).toMatchObject({ verified: 1, refused: 1, rowsToDelete: 3 });
    const refused = fx.logs.find((l) => l.table === table && l.message.includes("refused"));
    expect(refused?.reason).toMatch(/source 4 rows.*warehouse 3 rows/);
    expect(await snapshot(table)).toEqual(before);
  });

  it("queues one task per migrated day not yet cleaned; the tasks delete those days only", async () => {
    const table = await migratedTable();
    const summary = await startCleanup(fx.deps(), message(table, { dry_run: false }));
    expect(summary).toMatchObject({ dryRun: false, migratedDays: 2, enqueued: 2, alreadyQueued: 0 });
    const queued = [...(await fx.queue.queuedDays("clean", table))].sort();
    expect(queued).toEqual(["2024-01-01", "2024-01-02"]);

    const again = await startCleanup(fx.deps(), message(table, { dry_run: false }));
    expect(again).toMatchObject({ enqueued: 0, alreadyQueued: 2 });

    for (const day of queued) {
      const task = { kind: "clean" as const, table, filterColumn: "created_at", day };
      await cleanDay(fx.deps(), task);
      await fx.queue.settle(task);
    }
    expect((await fx.ids(table)).length).toBe(3);
    expect(await fx.ledger.migratedDays(table)).toEqual(["2024-01-01", "2024-01-02"]);
    expect(await fx.deps().state.cleanedDays(table)).toEqual(["2024-01-01", "2024-01-02"]);

    const after = await startCleanup(fx.deps(), message(table, { dry_run: false }));
    expect(after).toMatchObject({ alreadyCleaned: 2, enqueued: 0 });
  });

  it("says once, not per day, when the warehouse lacks the table the days were copied to", async () => {
    const table = await migratedTable();
    for (const day of ["2024-01-01", "2024-01-02"]) {
      const record = await fx.ledger.copiedDay(table, day);
      if (!record) throw new Error("no record");
      await fx.ledger.recordCopiedDay(table, { ...record, destination: "elsewhere.orders_copy" });
    }
    const before = await snapshot(table);

    const run = startCleanup(fx.deps(), message(table));

    await expect(run).rejects.toMatchObject({ reason: "warehouse", field: "clean_table" });
    await expect(run).rejects.toThrow(
      /the test's DuckDB file has no table elsewhere\.orders_copy, where its days were copied; nothing was checked/,
    );
    expect(fx.logs.filter((l) => l.table === table && String(l.message).includes("refused"))).toEqual([]);
    expect(await snapshot(table)).toEqual(before);
  });

  it("refuses while copy tasks for the table are queued, and says how many", async () => {
    const table = await migratedTable();
    await fx.queue.enqueue([
      { kind: "copy", table, destination: table, filterColumn: "created_at", day: "2024-01-03" },
    ]);
    const before = await snapshot(table);

    const run = startCleanup(fx.deps(), message(table, { dry_run: false }));

    await expect(run).rejects.toBeInstanceOf(RefusalError);
    await expect(run).rejects.toMatchObject({ field: "clean_table" });
    expect(await snapshot(table)).toEqual(before);
    expect(fx.logs.find((l) => l.table === table && l.copyTasksQueued !== undefined)?.copyTasksQueued).toBe(
      1,
    );
  });

  it.each([
    ["a missing table", { clean_table: "no_such_table" }, "clean_table"],
    ["a missing column", { filter_column: "nope" }, "filter_column"],
    ["a column that is not DATETIME", { filter_column: "qty" }, "filter_column"],
    ["a DATETIME column the table was not migrated by", { filter_column: "updated_at" }, "filter_column"],
  ])("rejects %s naming the field, and changes nothing", async (_name, change, field) => {
    const table = await migratedTable();
    const before = await snapshot(table);
    const run = startCleanup(fx.deps(), message(table, { dry_run: false, ...change }));
    await expect(run).rejects.toBeInstanceOf(InvalidInputError);
    await expect(run).rejects.toMatchObject({ field });
    expect(await snapshot(table)).toEqual(before);
  });

  it('rejects dry_run "false" (a string) before anything runs', () => {
    expect(() => parseMessage({ clean_table: "t", filter_column: "c", dry_run: "false" })).toThrow(/dry_run/);
  });
});
