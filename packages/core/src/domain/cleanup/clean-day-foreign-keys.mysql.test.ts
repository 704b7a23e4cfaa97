import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isFinalTaskError, VerificationError } from "../../errors";
import type { DayDeleter } from "../../ports/day-deleter";
import {
  afterPlanning,
  type CleanupFixture,
  cleanTask,
  createCleanupFixture,
  refusal,
} from "../../testing/cleanup-fixture";
import { createTestDatabase, uniqueName } from "../../testing/test-services";
import type { CalendarDay } from "../days/calendar-day";
import { cleanDay } from "./clean-day";
import { startCleanup } from "./start-cleanup";

let fx: CleanupFixture;

beforeAll(async () => {
  fx = await createCleanupFixture();
});

afterAll(async () => {
  // Drops the database with every parent, child and self-referencing table in it (the foreign keys between
  // them must not stand in the way); the suite's leak check fails this file if the database is left behind.
  await fx?.close();
});

/** Every row of `table`, every column, by id. */
async function rowsOf(table: string): Promise<Record<string, unknown>[]> {
  return fx.query<Record<string, unknown>>(`SELECT * FROM \`${table}\` ORDER BY id`);
}

/** A parent table of `perDay` rows on each day, ids 1.. in time order. */
async function parentTable(days: readonly CalendarDay[], perDay: number): Promise<string> {
  const table = uniqueName("orders");
  await fx.query(
    `CREATE TABLE \`${table}\` (
       id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
       created_at DATETIME NOT NULL,
       qty INT NOT NULL,
       KEY (created_at)
     ) ENGINE=InnoDB`,
  );
  for (const day of days) {
    for (let i = 0; i < perDay; i++) {
      await fx.query(`INSERT INTO \`${table}\` (created_at, qty) VALUES (?, ?)`, [
        `${day} ${String(i + 1).padStart(2, "0")}:00:00`,
        i,
      ]);
    }
  }
  return table;
}

type Rule = "CASCADE" | "SET NULL" | "RESTRICT" | "NO ACTION";

/** A child table whose `order_id` references `parent(id)` with `rule`; returns its name and constraint. */
async function childTable(parent: string, rule: Rule): Promise<{ child: string; constraint: string }> {
  const child = uniqueName("items");
  const constraint = uniqueName("fk_items");
  await fx.query(
    `CREATE TABLE \`${child}\` (
       id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
       order_id BIGINT UNSIGNED NULL,
       sku VARCHAR(16) NOT NULL,
       KEY idx_order (order_id),
       CONSTRAINT \`${constraint}\` FOREIGN KEY (order_id) REFERENCES \`${parent}\` (id) ON DELETE ${rule}
     ) ENGINE=InnoDB`,
  );
  return { child, constraint };
}

async function addChildRows(child: string, orderIds: readonly (number | null)[]): Promise<void> {
  for (const [i, orderId] of orderIds.entries()) {
    await fx.query(`INSERT INTO \`${child}\` (order_id, sku) VALUES (?, ?)`, [orderId, `sku-${i}`]);
  }
}

/** Runs `hook` once, right before the `n`th chunk delete (verification passed, chunks before it committed). */
function beforeChunk(deleter: DayDeleter, n: number, hook: () => Promise<unknown>): DayDeleter {
  let calls = 0;
  return {
    ...deleter,
    async deleteChunk(...args) {
      if (++calls === n) await hook();
      return deleter.deleteChunk(...args);
    },
  };
}

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

  it("a foreign key on a composite key of a table without an integer key (filter-value chunks)", async () => {
    const parent = uniqueName("lines");
    await fx.query(
      `CREATE TABLE \`${parent}\` (
         order_no INT NOT NULL, line INT NOT NULL, created_at DATETIME NOT NULL, sku VARCHAR(8) NOT NULL,
         PRIMARY KEY (order_no, line), KEY (created_at)
       ) ENGINE=InnoDB`,
    );
    const child = uniqueName("shipments");
    await fx.query(
      `CREATE TABLE \`${child}\` (
         id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, order_no INT NULL, line INT NULL,
         KEY (order_no, line),
         CONSTRAINT \`fk_${child}\` FOREIGN KEY (order_no, line) REFERENCES \`${parent}\` (order_no, line) ON DELETE CASCADE
       ) ENGINE=InnoDB`,
    );
    for (const [order, day] of [
      [1, "2024-09-07"],
      [2, "2024-09-07"],
      [3, "2024-09-08"],
    ] as const) {
      for (let line = 1; line <= 2; line++) {
        await fx.query(`INSERT INTO \`${parent}\` VALUES (?, ?, ?, 'x')`, [
          order,
          line,
          `${day} 0${order}:0${line}:00`,
        ]);
      }
    }
    // Line (2, 2) of 09-07 is shipped; a shipment without a line references nothing.
    await fx.query(`INSERT INTO \`${child}\` (order_no, line) VALUES (2, 2), (NULL, NULL)`);
    await fx.copy(parent, "2024-09-07");
    await fx.copy(parent, "2024-09-08");
    const shipments = await rowsOf(child);
    const lines = await fx.query(`SELECT * FROM \`${parent}\` ORDER BY order_no, line`);

    const error = await refusal(
      cleanDay(fx.deps({ settings: { chunkRows: 1 } }), cleanTask(parent, "2024-09-07")),
    );

    expect(error.reason).toBe("foreign-key");
    expect(error.message).toContain(
      `1 row of ${child} reference these rows through foreign key fk_${child} (order_no, line ON DELETE CASCADE)`,
    );
    expect(await fx.query(`SELECT * FROM \`${parent}\` ORDER BY order_no, line`)).toEqual(lines);
    expect(await rowsOf(child)).toEqual(shipments);

    await cleanDay(fx.deps({ settings: { chunkRows: 1 } }), cleanTask(parent, "2024-09-08"));
    expect(await fx.query(`SELECT * FROM \`${parent}\` ORDER BY order_no, line`)).toEqual(lines.slice(0, 4));
    expect(await rowsOf(child)).toEqual(shipments);
  });

  it("a foreign key on a unique column that is not the key", async () => {
    const parent = uniqueName("accounts");
    await fx.query(
      `CREATE TABLE \`${parent}\` (
         id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, code VARCHAR(8) NOT NULL, created_at DATETIME NOT NULL,
         UNIQUE KEY (code), KEY (created_at)
       ) ENGINE=InnoDB`,
    );
    const child = uniqueName("logins");
    await fx.query(
      `CREATE TABLE \`${child}\` (
         id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, account_code VARCHAR(8) NULL, KEY (account_code),
         CONSTRAINT \`fk_${child}\` FOREIGN KEY (account_code) REFERENCES \`${parent}\` (code) ON DELETE SET NULL
       ) ENGINE=InnoDB`,
    );
    await fx.query(
      `INSERT INTO \`${parent}\` (code, created_at) VALUES ('a', '2024-09-09 01:00:00'), ('b', '2024-09-09 02:00:00'), ('c', '2024-09-10 01:00:00')`,
    );
    await fx.query(`INSERT INTO \`${child}\` (account_code) VALUES ('b'), ('c')`);
    await fx.copy(parent, "2024-09-09");
    await fx.copy(parent, "2024-09-10");
    const logins = await rowsOf(child);

    for (const day of ["2024-09-09", "2024-09-10"] as const) {
      const error = await refusal(cleanDay(fx.deps(), cleanTask(parent, day)));
      expect(error.message).toContain(
        `1 row of ${child} reference these rows through foreign key fk_${child} (account_code ON DELETE SET NULL)`,
      );
    }
    expect((await rowsOf(parent)).map((row) => row.code)).toEqual(["a", "b", "c"]);
    expect(await rowsOf(child)).toEqual(logins);
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
    expect(outcome).toBeInstanceOf(VerificationError);
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
    expect(outcome).toBeInstanceOf(VerificationError);
    expect((await rowsOf(table)).map((row) => row.id)).toEqual(["3", "4"]);
  });
});

describe("a referencing table in another database", () => {
  it("is found and refuses the referenced day; its rows are untouched", async () => {
    const parent = await parentTable(["2024-09-27", "2024-09-28"], 2);
    const other = await createTestDatabase("cleanup_other");
    try {
      await other.connection.query(
        `CREATE TABLE refs (
           id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, order_id BIGINT UNSIGNED NULL, KEY (order_id),
           CONSTRAINT fk_other_refs FOREIGN KEY (order_id) REFERENCES \`${fx.db.name}\`.\`${parent}\` (id) ON DELETE CASCADE
         ) ENGINE=InnoDB`,
      );
      await other.connection.query("INSERT INTO refs (order_id) VALUES (1)");
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
      // The fixture's database cannot be dropped while a table elsewhere references one of its tables.
      await other.drop();
    }
  });
});

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
