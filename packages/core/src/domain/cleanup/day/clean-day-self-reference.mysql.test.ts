import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CleanupFixture,
  cleanTask,
  createCleanupFixture,
  refusal,
} from "../../../testing/cleanup-fixture";
import { uniqueName } from "../../../testing/test-services";
import { cleanDay } from "./clean-day";

let fx: CleanupFixture;

beforeAll(async () => {
  fx = await createCleanupFixture();
});

afterAll(async () => {
  await fx?.close();
});

type Rule = "CASCADE" | "SET NULL" | "RESTRICT" | "NO ACTION";

/** Every row of `table`, every column, by id. */
async function rowsOf(table: string): Promise<Record<string, unknown>[]> {
  return fx.query<Record<string, unknown>>(`SELECT * FROM \`${table}\` ORDER BY id`);
}

describe("cleanDay on a self-referencing table", () => {
  async function commentsTable(rule: Rule = "CASCADE", column = "parent_id"): Promise<string> {
    const table = uniqueName("comments");
    await fx.query(
      `CREATE TABLE \`${table}\` (
         id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
         created_at DATETIME NOT NULL,
         ${column} INT NULL,
         body VARCHAR(32) NOT NULL,
         KEY (created_at), KEY (${column}),
         CONSTRAINT \`fk_${table}\` FOREIGN KEY (${column}) REFERENCES \`${table}\` (id) ON DELETE ${rule}
       ) ENGINE=InnoDB`,
    );
    return table;
  }

  async function comment(table: string, id: number, at: string, ref: number | null, column = "parent_id") {
    await fx.query(`INSERT INTO \`${table}\` (id, created_at, ${column}, body) VALUES (?, ?, ?, ?)`, [
      id,
      at,
      ref,
      `comment ${id}`,
    ]);
  }

  it.each<Rule>(["CASCADE", "RESTRICT", "SET NULL"])(
    "ON DELETE %s: replies within the day go with their parents, across chunks; other days stay",
    async (rule) => {
      const table = await commentsTable(rule);
      await comment(table, 1, "2024-09-11 01:00:00", null);
      await comment(table, 2, "2024-09-11 02:00:00", 1);
      await comment(table, 3, "2024-09-11 03:00:00", 2);
      await comment(table, 4, "2024-09-11 04:00:00", 1);
      await comment(table, 5, "2024-09-11 05:00:00", 3);
      await comment(table, 6, "2024-09-12 01:00:00", null);
      await comment(table, 7, "2024-09-12 02:00:00", 6);
      await fx.copy(table, "2024-09-11");
      const otherDay = (await rowsOf(table)).slice(5);

      const report = await cleanDay(fx.deps({ settings: { chunkRows: 2 } }), cleanTask(table, "2024-09-11"));

      expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 5, chunks: 3 });
      expect(await rowsOf(table)).toEqual(otherDay);
      expect(otherDay).toEqual([
        { id: 6, created_at: "2024-09-12 01:00:00", parent_id: null, body: "comment 6" },
        { id: 7, created_at: "2024-09-12 02:00:00", parent_id: 6, body: "comment 7" },
      ]);
    },
  );

  it("a row replied to from another day refuses its day until the reply's day is cleaned", async () => {
    const table = await commentsTable("CASCADE");
    await comment(table, 1, "2024-09-13 01:00:00", null);
    await comment(table, 2, "2024-09-13 02:00:00", 1);
    await comment(table, 3, "2024-09-14 01:00:00", 2);
    await comment(table, 4, "2024-09-14 02:00:00", null);
    await comment(table, 5, "2024-09-15 01:00:00", null);
    await fx.copy(table, "2024-09-13");
    await fx.copy(table, "2024-09-14");
    const before = await rowsOf(table);

    const error = await refusal(cleanDay(fx.deps(), cleanTask(table, "2024-09-13")));

    expect(error.reason).toBe("foreign-key");
    expect(error.message).toContain(
      `1 row of ${table} itself (rows of other days, or rows deleted after the rows they reference) reference these rows through foreign key fk_${table} (parent_id ON DELETE CASCADE)`,
    );
    expect(await rowsOf(table)).toEqual(before);

    await cleanDay(fx.deps(), cleanTask(table, "2024-09-14"));
    expect((await rowsOf(table)).map((row) => row.id)).toEqual([1, 2, 5]);
    await cleanDay(fx.deps(), cleanTask(table, "2024-09-13"));
    expect((await rowsOf(table)).map((row) => row.id)).toEqual([5]);
  });

  // A row of the day referencing a NEWER row of the same day (a `superseded_by`,
  // `merged_into`): deleted newest first, the referenced row would go while the
  // older one still points at it, so the day is refused before any delete.
  it.each<[Rule, number]>([
    ["RESTRICT", 2],
    ["CASCADE", 2],
    ["RESTRICT", 100],
    ["CASCADE", 100],
  ])(
    "ON DELETE %s, chunks of %i: a row pointing at a newer row of the same day refuses the day, nothing changes",
    async (rule, chunkRows) => {
      const table = await commentsTable(rule, "superseded_by");
      await comment(table, 1, "2024-09-16 01:00:00", null, "superseded_by");
      await comment(table, 2, "2024-09-16 02:00:00", null, "superseded_by");
      await comment(table, 3, "2024-09-16 03:00:00", null, "superseded_by");
      await comment(table, 4, "2024-09-16 04:00:00", null, "superseded_by");
      await comment(table, 5, "2024-09-17 01:00:00", null, "superseded_by");
      await fx.query(`UPDATE \`${table}\` SET superseded_by = 4 WHERE id = 1`);
      await fx.copy(table, "2024-09-16");

      const before = await rowsOf(table);

      const error = await refusal(
        cleanDay(fx.deps({ settings: { chunkRows } }), cleanTask(table, "2024-09-16")),
      );

      expect(error.reason).toBe("foreign-key");
      expect(error.message).toMatch(/rows deleted after the rows they reference/);
      expect(await rowsOf(table)).toEqual(before);
    },
  );
});
