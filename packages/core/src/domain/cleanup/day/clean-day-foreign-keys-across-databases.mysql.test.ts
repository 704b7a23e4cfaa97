import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanupFixture, fx } from "../../../testing/cleanup/file-fixture";
import { parentTable, rowsOf } from "../../../testing/cleanup/referencing-tables";
import { cleanTask, refusal } from "../../../testing/cleanup-fixture";
import { createTestDatabase, type TestDatabase } from "../../../testing/test-services";
import { cleanDay } from "./clean-day";

beforeAll(cleanupFixture.create);
afterAll(cleanupFixture.close);

/** A database beside the fixture's whose `refs` references `parent` (ON DELETE CASCADE), one row referencing id 1. */
async function referencedFromAnotherDatabase(parent: string): Promise<TestDatabase> {
  const other = await createTestDatabase("cleanup_other");
  await other.connection.query(
    `CREATE TABLE refs (
       id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, order_id BIGINT UNSIGNED NULL, KEY (order_id),
       CONSTRAINT fk_other_refs FOREIGN KEY (order_id) REFERENCES \`${fx.db.name}\`.\`${parent}\` (id) ON DELETE CASCADE
     ) ENGINE=InnoDB`,
  );
  await other.connection.query("INSERT INTO refs (order_id) VALUES (1)");
  return other;
}

describe("a referencing table in another database", () => {
  it("is found and refuses the referenced day; its rows are untouched", async () => {
    const parent = await parentTable(["2024-09-27", "2024-09-28"], 2);
    const other = await referencedFromAnotherDatabase(parent);
    try {
      // The documented grants: SELECT on every table that references the cleaned one.
      await fx.account.change([`GRANT SELECT ON \`${other.name}\`.refs TO {account}`]);
      await fx.copy(parent, "2024-09-27");
      await fx.copy(parent, "2024-09-28");

      const error = await refusal(cleanDay(fx.deps(), cleanTask(parent, "2024-09-27")));

      expect(error.reason).toBe("foreign-key");
      expect(error.message).toContain("1 row of refs reference these rows through foreign key fk_other_refs");
      expect(await other.connection.query("SELECT id, order_id FROM refs").then(([rows]) => rows)).toEqual([
        { id: 1, order_id: "1" },
      ]);
      await cleanDay(fx.deps(), cleanTask(parent, "2024-09-28"));
      expect((await rowsOf(parent)).map((row) => row.id)).toEqual(["1", "2"]);
    } finally {
      await fx.account.change([`REVOKE SELECT ON \`${other.name}\`.refs FROM {account}`]);
      // The fixture's database cannot be dropped while a table elsewhere references one of its tables.
      await other.drop();
    }
  });

  it("refuses every day, naming the grant, when the account may not read that table; no row anywhere changes", async () => {
    const parent = await parentTable(["2024-09-29", "2024-09-30"], 2);
    const other = await referencedFromAnotherDatabase(parent);
    try {
      await fx.copy(parent, "2024-09-29");
      await fx.copy(parent, "2024-09-30");
      const before = await rowsOf(parent);

      for (const day of ["2024-09-29", "2024-09-30"] as const) {
        const error = await refusal(cleanDay(fx.deps(), cleanTask(parent, day)));
        expect(error.reason).toBe("privilege");
        expect(error.message).toContain(
          `GRANT SELECT ON \`${other.name}\`.\`refs\` TO ${fx.account.account};`,
        );
      }
      expect(await rowsOf(parent)).toEqual(before);
      expect(await other.connection.query("SELECT id, order_id FROM refs").then(([rows]) => rows)).toEqual([
        { id: 1, order_id: "1" },
      ]);
    } finally {
      await other.drop();
    }
  });
});
