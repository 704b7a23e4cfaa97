import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isFinalTaskError, RefusalError } from "../../../errors";
import { cleanupFixture, fx } from "../../../testing/cleanup/file-fixture";
import {
  addChildRows,
  beforeChunk,
  childTable,
  parentTable,
  type Rule,
  rowsOf,
} from "../../../testing/cleanup/referencing-tables";
import { afterPlanning, cleanTask, refusal } from "../../../testing/cleanup-fixture";
import { uniqueName } from "../../../testing/test-services";
import { cleanDay } from "./clean-day";

// Foreign keys on a composite key or a unique column: clean-day-foreign-key-columns.mysql.test.ts; a referencing
// table in another database: clean-day-foreign-keys-across-databases.mysql.test.ts; the dry run:
// start-cleanup-foreign-keys.mysql.test.ts.

beforeAll(cleanupFixture.create);
afterAll(cleanupFixture.close);

describe("cleanDay on a table other tables reference", () => {
  it.each<[Rule, string]>([
    ["CASCADE", "would delete those rows too"],
    ["SET NULL", "would set their order_id to NULL"],
    ["RESTRICT", "would refuse the delete"],
    ["NO ACTION", "would refuse the delete"],
  ])(
    "ON DELETE %s: a referenced day is refused and the child rows are untouched; an unreferenced day cleans",
    async (rule, effect) => {
      const parent = await parentTable(["2024-09-01", "2024-09-02"], 3);
      const { child, constraint } = await childTable(parent, rule);
      // Two rows of 09-01 are referenced (one twice); 09-02 only by a NULL.
      await addChildRows(child, [1, 1, 3, null]);
      await fx.copy(parent, "2024-09-01");
      await fx.copy(parent, "2024-09-02");
      const children = await rowsOf(child);
      const parents = await rowsOf(parent);

      const error = await refusal(cleanDay(fx.deps(), cleanTask(parent, "2024-09-01")));

      expect(error.reason).toBe("foreign-key");
      expect(isFinalTaskError(error)).toBe(true);
      expect(error.message).toContain(
        `3 rows of ${child} reference these rows through foreign key ${constraint} (order_id ON DELETE ${rule}), which ${effect}`,
      );
      expect(await rowsOf(child)).toEqual(children);
      expect(await rowsOf(parent)).toEqual(parents);
      expect(await fx.deps().state.read({ table: parent, day: "2024-09-01" })).toBeUndefined();

      const report = await cleanDay(fx.deps(), cleanTask(parent, "2024-09-02"));

      expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 3 });
      expect(await rowsOf(parent)).toEqual(parents.slice(0, 3));
      expect(await rowsOf(child)).toEqual(children);
    },
  );

  it("names every referencing table at once", async () => {
    const parent = await parentTable(["2024-09-03"], 3);
    const cascade = await childTable(parent, "CASCADE");
    const setNull = await childTable(parent, "SET NULL");
    const restrict = await childTable(parent, "RESTRICT");
    await addChildRows(cascade.child, [1]);
    await addChildRows(setNull.child, [2, 3]);
    await addChildRows(restrict.child, [null]);
    await fx.copy(parent, "2024-09-03");
    const before = {
      parent: await rowsOf(parent),
      cascade: await rowsOf(cascade.child),
      setNull: await rowsOf(setNull.child),
      restrict: await rowsOf(restrict.child),
    };

    const error = await refusal(cleanDay(fx.deps(), cleanTask(parent, "2024-09-03")));

    expect(error.message).toContain(
      `1 row of ${cascade.child} reference these rows through foreign key ${cascade.constraint}`,
    );
    expect(error.message).toContain(
      `2 rows of ${setNull.child} reference these rows through foreign key ${setNull.constraint}`,
    );
    expect(error.message).not.toContain(restrict.child);
    expect({
      parent: await rowsOf(parent),
      cascade: await rowsOf(cascade.child),
      setNull: await rowsOf(setNull.child),
      restrict: await rowsOf(restrict.child),
    }).toEqual(before);
  });

  it("a child row inserted once the plan is made is seen before anything is deleted", async () => {
    const parent = await parentTable(["2024-09-04"], 6);
    const { child, constraint } = await childTable(parent, "CASCADE");
    await fx.copy(parent, "2024-09-04");
    const parents = await rowsOf(parent);
    const deleter = afterPlanning(fx.deleter, () => addChildRows(child, [5]));

    const error = await refusal(
      cleanDay(fx.deps({ deleter, settings: { chunkRows: 2 } }), cleanTask(parent, "2024-09-04")),
    );

    expect(error.reason).toBe("foreign-key");
    expect(error.message).toContain(constraint);
    expect(await rowsOf(parent)).toEqual(parents);
    expect(await rowsOf(child)).toEqual([{ id: 1, order_id: "5", sku: "sku-0" }]);
  });

  it("a child row inserted after verification rolls its chunk back: the day fails for good, the child row stays", async () => {
    const parent = await parentTable(["2024-09-05"], 6);
    const { child, constraint } = await childTable(parent, "CASCADE");
    await fx.copy(parent, "2024-09-05");
    const parents = await rowsOf(parent);
    // Chunks [1,2] [3,4] [5,6]: the first is deleted, then a child of 3 arrives.
    const deleter = beforeChunk(fx.deleter, 2, () => addChildRows(child, [3]));

    const error = await refusal(
      cleanDay(fx.deps({ deleter, settings: { chunkRows: 2 } }), cleanTask(parent, "2024-09-05")),
    );

    expect(error.reason).toBe("foreign-key");
    expect(isFinalTaskError(error)).toBe(true);
    expect(error.message).toMatch(
      new RegExp(
        `id 3\\.\\.4: 1 row of ${child} reference these rows through foreign key ${constraint} \\(order_id ON DELETE CASCADE\\)`,
      ),
    );
    expect(error.message).toMatch(
      /nothing in that range was deleted, 2 rows of the day were deleted before it/,
    );
    expect(await rowsOf(parent)).toEqual(parents.slice(2));
    expect(await rowsOf(child)).toEqual([{ id: 1, order_id: "3", sku: "sku-0" }]);

    // The retry resumes at the same chunk and refuses it again.
    await refusal(cleanDay(fx.deps({ settings: { chunkRows: 2 } }), cleanTask(parent, "2024-09-05")));
    expect(await rowsOf(parent)).toEqual(parents.slice(2));
    expect(await rowsOf(child)).toEqual([{ id: 1, order_id: "3", sku: "sku-0" }]);
  });

  it("a SET NULL child row inserted after verification is not nulled", async () => {
    const parent = await parentTable(["2024-09-06"], 4);
    const { child } = await childTable(parent, "SET NULL");
    await fx.copy(parent, "2024-09-06");
    const deleter = beforeChunk(fx.deleter, 1, () => addChildRows(child, [2]));

    const error = await refusal(
      cleanDay(fx.deps({ deleter, settings: { chunkRows: 2 } }), cleanTask(parent, "2024-09-06")),
    );

    expect(error.reason).toBe("foreign-key");
    expect((await rowsOf(parent)).map((row) => row.id)).toEqual(["1", "2", "3", "4"]);
    expect(await rowsOf(child)).toEqual([{ id: 1, order_id: "2", sku: "sku-0" }]);
  });
});

describe("side effects that appear while a day is being deleted", () => {
  // FINDING: the referencing keys and triggers are read once, when the task
  // starts; a chunk checks references only through the keys read then.
  it("a foreign key created between two chunks: its child rows are not cascaded", async () => {
    const parent = await parentTable(["2024-09-25"], 4);
    await fx.copy(parent, "2024-09-25");
    let child = "";
    const deleter = beforeChunk(fx.deleter, 2, async () => {
      ({ child } = await childTable(parent, "CASCADE"));
      await addChildRows(child, [3]);
    });

    const outcome = await cleanDay(
      fx.deps({ deleter, settings: { chunkRows: 2 } }),
      cleanTask(parent, "2024-09-25"),
    ).then(
      (report) => report.outcome,
      (error: unknown) => error,
    );

    expect(await rowsOf(child)).toEqual([{ id: 1, order_id: "3", sku: "sku-0" }]);
    expect(outcome).toBeInstanceOf(RefusalError);
    expect((await rowsOf(parent)).map((row) => row.id)).toEqual(["3", "4"]);
  });

  it("a DELETE trigger created between two chunks does not run", async () => {
    const table = await parentTable(["2024-09-26"], 4);
    await fx.copy(table, "2024-09-26");
    const audit = uniqueName("audit");
    const deleter = beforeChunk(fx.deleter, 2, async () => {
      await fx.query(`CREATE TABLE \`${audit}\` (order_id BIGINT UNSIGNED NOT NULL) ENGINE=InnoDB`);
      await fx.query(
        `CREATE TRIGGER \`trg_${audit}\` AFTER DELETE ON \`${table}\` FOR EACH ROW INSERT INTO \`${audit}\` VALUES (OLD.id)`,
      );
    });

    const outcome = await cleanDay(
      fx.deps({ deleter, settings: { chunkRows: 2 } }),
      cleanTask(table, "2024-09-26"),
    ).then(
      (report) => report.outcome,
      (error: unknown) => error,
    );

    expect(await fx.query(`SELECT * FROM \`${audit}\``)).toEqual([]);
    expect(outcome).toBeInstanceOf(RefusalError);
    expect((await rowsOf(table)).map((row) => row.id)).toEqual(["3", "4"]);
  });
});
