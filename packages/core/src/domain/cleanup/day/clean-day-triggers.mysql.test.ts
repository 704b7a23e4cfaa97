import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidInputError, isFinalTaskError } from "../../../errors";
import {
  type CleanupFixture,
  cleanTask,
  createCleanupFixture,
  refusal,
} from "../../../testing/cleanup-fixture";
import { uniqueName } from "../../../testing/test-services";
import { startCleanup } from "../start-cleanup";
import { cleanDay } from "./clean-day";

let fx: CleanupFixture;

beforeAll(async () => {
  fx = await createCleanupFixture();
});

afterAll(async () => {
  await fx?.close();
});

/** Every row of `table`, every column, by id. */
async function rowsOf(table: string): Promise<Record<string, unknown>[]> {
  return fx.query<Record<string, unknown>>(`SELECT * FROM \`${table}\` ORDER BY id`);
}

describe("DELETE triggers", () => {
  async function auditedTable(): Promise<{ table: string; audit: string; trigger: string }> {
    const table = await fx.keyedTable(["2024-09-20", "2024-09-21"], 3);
    const audit = uniqueName("audit");
    const trigger = uniqueName("trg_audit");
    await fx.query(
      `CREATE TABLE \`${audit}\` (order_id BIGINT UNSIGNED NOT NULL, qty INT NOT NULL) ENGINE=InnoDB`,
    );
    await fx.query(
      `CREATE TRIGGER \`${trigger}\` AFTER DELETE ON \`${table}\` FOR EACH ROW
         INSERT INTO \`${audit}\` (order_id, qty) VALUES (OLD.id, OLD.qty)`,
    );
    await fx.copy(table, "2024-09-20");
    return { table, audit, trigger };
  }

  it("refuses the day without the opt-in: rows kept, the audit table stays empty", async () => {
    const { table, audit, trigger } = await auditedTable();
    const before = await rowsOf(table);

    const error = await refusal(cleanDay(fx.deps(), cleanTask(table, "2024-09-20")));

    expect(error.reason).toBe("trigger");
    expect(isFinalTaskError(error)).toBe(true);
    expect(error.message).toContain(`table "${table}" has DELETE trigger ${trigger}`);
    expect(error.message).toContain('"allow_delete_triggers": true');
    expect(await rowsOf(table)).toEqual(before);
    expect(await fx.query(`SELECT * FROM \`${audit}\``)).toEqual([]);
  });

  it("cleans the day with allowDeleteTriggers: the trigger ran for every deleted row", async () => {
    const { table, audit } = await auditedTable();
    const before = await rowsOf(table);

    const report = await cleanDay(fx.deps({ settings: { chunkRows: 2 } }), {
      ...cleanTask(table, "2024-09-20"),
      allowDeleteTriggers: true,
    });

    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 3 });
    expect(await rowsOf(table)).toEqual(before.slice(3));
    expect(await fx.query(`SELECT order_id, qty FROM \`${audit}\` ORDER BY order_id`)).toEqual([
      { order_id: "1", qty: 0 },
      { order_id: "2", qty: 1 },
      { order_id: "3", qty: 2 },
    ]);
  });

  it("startCleanup without allow_delete_triggers throws naming the trigger and queues nothing", async () => {
    const { table, audit, trigger } = await auditedTable();
    const before = await rowsOf(table);
    for (const dryRun of [true, false]) {
      const run = startCleanup(fx.deps(), {
        clean_table: table,
        filter_column: "created_at",
        dry_run: dryRun,
        recopy_changed_days: false,
        allow_delete_triggers: false,
        exchange_partitions: true,
      });
      await expect(run).rejects.toBeInstanceOf(InvalidInputError);
      await expect(run).rejects.toMatchObject({ field: "allow_delete_triggers" });
      await expect(run).rejects.toThrow(trigger);
    }
    expect((await fx.queue.queuedDays("clean", table)).size).toBe(0);
    expect(await rowsOf(table)).toEqual(before);
    expect(await fx.query(`SELECT * FROM \`${audit}\``)).toEqual([]);

    const summary = await startCleanup(fx.deps(), {
      clean_table: table,
      filter_column: "created_at",
      dry_run: false,
      recopy_changed_days: false,
      allow_delete_triggers: true,
      exchange_partitions: true,
    });
    expect(summary).toMatchObject({ enqueued: 1 });
    expect([...(await fx.queue.queuedDays("clean", table))]).toEqual(["2024-09-20"]);
  });
});
