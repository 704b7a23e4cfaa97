import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanupFixture, fx } from "../../testing/cleanup/file-fixture";
import { addChildRows, childTable, parentTable, rowsOf } from "../../testing/cleanup/referencing-tables";
import { startCleanup } from "./start-cleanup";

beforeAll(cleanupFixture.create);
afterAll(cleanupFixture.close);

describe("startCleanup dry run on a referenced table", () => {
  it("lists the referenced days as refused (foreign-key) and deletes nothing", async () => {
    const parent = await parentTable(["2024-09-22", "2024-09-23", "2024-09-24"], 2);
    const { child, constraint } = await childTable(parent, "CASCADE");
    // 09-22 and 09-24 are referenced; 09-23 is not.
    await addChildRows(child, [2, 5, 6]);
    for (const day of ["2024-09-22", "2024-09-23", "2024-09-24"] as const) await fx.copy(parent, day);
    const parents = await rowsOf(parent);
    const children = await rowsOf(child);

    const summary = await startCleanup(fx.deps(), {
      clean_table: parent,
      filter_column: "created_at",
      dry_run: true,
      recopy_changed_days: false,
      allow_delete_triggers: false,
      exchange_partitions: true,
    });

    expect(summary).toMatchObject({
      dryRun: true,
      migratedDays: 3,
      verified: 1,
      refused: 2,
      rowsToDelete: 2,
      enqueued: 0,
    });
    const refused = fx.logs.filter(
      (l) => l.message === "cleanup dry run: day refused; its rows would be kept" && l.table === parent,
    );
    expect(refused.map((l) => [l.day, l.refusal])).toEqual([
      ["2024-09-22", "foreign-key"],
      ["2024-09-24", "foreign-key"],
    ]);
    expect(refused[0]?.reason).toContain(
      `1 row of ${child} reference these rows through foreign key ${constraint}`,
    );
    expect(refused[1]?.reason).toContain(`2 rows of ${child}`);
    const verified = fx.logs.filter(
      (l) => l.message === "cleanup dry run: day verified" && l.table === parent,
    );
    expect(verified.map((l) => l.day)).toEqual(["2024-09-23"]);
    expect(await rowsOf(parent)).toEqual(parents);
    expect(await rowsOf(child)).toEqual(children);
    expect(await fx.deps().state.cleanedDays(parent)).toEqual([]);
    expect((await fx.queue.queuedDays("clean", parent)).size).toBe(0);
  });
});
