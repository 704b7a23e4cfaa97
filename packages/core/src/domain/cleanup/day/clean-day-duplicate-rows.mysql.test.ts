import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CalendarDay } from "../../../model/calendar-day";
import { rowsOf } from "../../../testing/cleanup/content-rows";
import { cleanupFixture, fx } from "../../../testing/cleanup/file-fixture";
import { cleanTask, refusal } from "../../../testing/cleanup-fixture";
import { uniqueName } from "../../../testing/test-services";
import { cleanDay } from "./clean-day";

beforeAll(cleanupFixture.create);
afterAll(cleanupFixture.close);

describe("cleanDay on a keyless table with duplicate rows", () => {
  async function duplicatesTable(day: CalendarDay): Promise<string> {
    const table = uniqueName("dups");
    await fx.query(
      `CREATE TABLE \`${table}\` (created_at DATETIME NOT NULL, kind VARCHAR(16) NOT NULL, n INT NULL) ENGINE=InnoDB`,
    );
    // Three identical rows, two more identical ones at another instant, one single row, and a neighbour day.
    await fx.query(
      `INSERT INTO \`${table}\` VALUES
         ('${day} 01:00:00', 'same', 1), ('${day} 01:00:00', 'same', 1), ('${day} 01:00:00', 'same', 1),
         ('${day} 02:00:00', 'pair', NULL), ('${day} 02:00:00', 'pair', NULL),
         ('${day} 03:00:00', 'single', 7),
         ('${day} 00:00:00' - INTERVAL 1 SECOND, 'before', 0)`,
    );
    return table;
  }

  it("copies and cleans every duplicate, in filter-value chunks, and nothing else", async () => {
    const table = await duplicatesTable("2024-07-10");
    await fx.copy(table, "2024-07-10");

    // Chunks of 2 rows never split an instant: {01:00 x3} {02:00 x2} {03:00}.
    const report = await cleanDay(fx.deps({ settings: { chunkRows: 2 } }), cleanTask(table, "2024-07-10"));

    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 6, chunks: 3 });
    expect(await rowsOf(table, "created_at")).toEqual([
      { created_at: "2024-07-09 23:59:59", kind: "before", n: 0 },
    ]);
  });

  it("one of three identical rows deleted after the copy: refused as rows gone, the other rows kept", async () => {
    const table = await duplicatesTable("2024-07-11");
    await fx.copy(table, "2024-07-11");
    await fx.query(`DELETE FROM \`${table}\` WHERE kind = 'same' LIMIT 1`);
    const before = await rowsOf(table, "created_at");

    const error = await refusal(cleanDay(fx.deps(), cleanTask(table, "2024-07-11")));

    expect(error.reason).toBe("changed");
    expect(error.message).toMatch(/rows gone: 1 row fewer than copied/);
    expect(await rowsOf(table, "created_at")).toEqual(before);
    expect(before).toHaveLength(6);
  });

  it("one identical row added after the copy: refused as rows added", async () => {
    const table = await duplicatesTable("2024-07-12");
    await fx.copy(table, "2024-07-12");
    await fx.query(`INSERT INTO \`${table}\` VALUES ('2024-07-12 02:00:00', 'pair', NULL)`);

    const error = await refusal(cleanDay(fx.deps(), cleanTask(table, "2024-07-12")));

    expect(error.reason).toBe("changed");
    expect(error.message).toMatch(/rows added: 1 row more than copied/);
    expect(await rowsOf(table, "created_at")).toHaveLength(8);
  });

  it("one duplicate changed into another duplicate (same count) is refused", async () => {
    const table = await duplicatesTable("2024-07-13");
    await fx.copy(table, "2024-07-13");
    // {same x3, pair x2} becomes {same x2, pair x3}: row count and instants unchanged.
    await fx.query(
      `UPDATE \`${table}\` SET created_at = '2024-07-13 02:00:00', kind = 'pair', n = NULL WHERE kind = 'same' LIMIT 1`,
    );
    const before = await rowsOf(table, "created_at, kind");

    const error = await refusal(cleanDay(fx.deps(), cleanTask(table, "2024-07-13")));

    expect(error.reason).toBe("changed");
    expect(error.message).toMatch(/rows changed/);
    expect(await rowsOf(table, "created_at, kind")).toEqual(before);
  });
});
