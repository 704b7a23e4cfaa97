import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cleanupOf, closeAccounts, depsAs } from "../../../testing/cleanup/accounts";
import { cleanupFixture, fx } from "../../../testing/cleanup/file-fixture";
import { addChildRows, childTable, parentTable, rowsOf } from "../../../testing/cleanup/referencing-tables";
import { cleanTask, refusal } from "../../../testing/cleanup-fixture";
import { createTestDatabase, type TestDatabase } from "../../../testing/test-services";
import { startCleanup } from "../start-cleanup";
import { cleanDay } from "./clean-day";

// A parent referenced by a child in its own database (ON DELETE CASCADE) and by one in another database
// (ON DELETE SET NULL), cleaned by accounts that see less than root does.

beforeAll(cleanupFixture.create);
afterAll(cleanupFixture.close);
afterEach(closeAccounts);

const DAYS = ["2024-10-01", "2024-10-02", "2024-10-03", "2024-10-04", "2024-10-05", "2024-10-06"] as const;

interface Arrangement {
  readonly parent: string;
  readonly child: string;
  readonly constraint: string;
  readonly other: TestDatabase;
  /** Every row of every table involved, to prove none changed. */
  snapshot(): Promise<unknown[]>;
}

/** Days 10-01 (child) and 10-06 (other database's child2) are referenced; the four between are not. */
async function arrange(): Promise<Arrangement> {
  const parent = await parentTable(DAYS, 2);
  const { child, constraint } = await childTable(parent, "CASCADE");
  await addChildRows(child, [1]);
  const other = await createTestDatabase("cleanup_other");
  await other.connection.query(
    `CREATE TABLE child2 (
       id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, parent_id BIGINT UNSIGNED NULL, KEY (parent_id),
       CONSTRAINT fk_child2 FOREIGN KEY (parent_id) REFERENCES \`${fx.db.name}\`.\`${parent}\` (id) ON DELETE SET NULL
     ) ENGINE=InnoDB`,
  );
  await other.connection.query("INSERT INTO child2 (parent_id) VALUES (12)");
  for (const day of DAYS) await fx.copy(parent, day);
  return {
    parent,
    child,
    constraint,
    other,
    snapshot: async () => [
      await rowsOf(parent),
      await rowsOf(child),
      await other.connection.query("SELECT * FROM child2").then(([rows]) => rows),
    ],
  };
}

describe("cleanup as an account that sees less than root", () => {
  it("as an account holding only SELECT and DELETE on it, plans the cleanup but every task refuses its day with the grants it lacks", async () => {
    const a = await arrange();
    try {
      const before = await a.snapshot();
      const { deps, account } = await depsAs([
        `GRANT SELECT, DELETE ON \`${fx.db.name}\`.\`${a.parent}\` TO {account}`,
      ]);

      // Planning reads the table only: it says it saw no key and no trigger, and leaves them to the tasks.
      for (const dryRun of [true, false]) {
        const summary = await startCleanup(deps, cleanupOf(a.parent, dryRun));
        expect(summary.sideEffectsUnseen).toMatch(
          /cannot see the foreign keys .* each cleanup task checks them/,
        );
      }
      expect((await fx.queue.queuedDays("clean", a.parent)).size).toBe(DAYS.length);
      // Each task, referenced day or not, refuses before deleting, naming every grant it lacks.
      for (const day of ["2024-10-01", "2024-10-02"]) {
        const task = await refusal(cleanDay(deps, cleanTask(a.parent, day)));
        expect(task.reason).toBe("privilege");
        expect(task.message).toContain(`GRANT PROCESS ON *.* TO ${account.account};`);
        expect(task.message).toContain(
          `GRANT TRIGGER ON \`${fx.db.name}\`.\`${a.parent}\` TO ${account.account};`,
        );
      }

      expect(await a.snapshot()).toEqual(before);
      expect(
        fx.logs.find((l) => l.message === "cleanup account check" && l.table === a.parent),
      ).toMatchObject({
        account: account.account,
      });
    } finally {
      await a.other.drop();
    }
  });

  it("with exactly the documented grants, refuses the referenced days naming key, rule and child, and cleans the rest", async () => {
    const a = await arrange();
    try {
      const { deps } = await depsAs([
        `GRANT SELECT, DELETE, TRIGGER ON \`${fx.db.name}\`.\`${a.parent}\` TO {account}`,
        `GRANT SELECT ON \`${fx.db.name}\`.\`${a.child}\` TO {account}`,
        `GRANT SELECT ON \`${a.other.name}\`.child2 TO {account}`,
        "GRANT PROCESS ON *.* TO {account}",
      ]);
      const children = await rowsOf(a.child);
      const summary = await startCleanup(deps, cleanupOf(a.parent, true));
      expect(summary).toMatchObject({ migratedDays: 6, verified: 4, refused: 2 });

      const first = await refusal(cleanDay(deps, cleanTask(a.parent, "2024-10-01")));
      expect(first.reason).toBe("foreign-key");
      expect(first.message).toContain(
        `1 row of ${a.child} reference these rows through foreign key ${a.constraint}`,
      );
      expect(first.message).toContain("ON DELETE CASCADE), which would delete those rows too");
      const last = await refusal(cleanDay(deps, cleanTask(a.parent, "2024-10-06")));
      expect(last.message).toContain("1 row of child2 reference these rows through foreign key fk_child2");
      expect(last.message).toContain("ON DELETE SET NULL), which would set their parent_id to NULL");
      for (const day of DAYS.slice(1, 5)) await cleanDay(deps, cleanTask(a.parent, day));

      expect((await rowsOf(a.parent)).map((row) => row.id)).toEqual(["1", "2", "11", "12"]);
      expect(await rowsOf(a.child)).toEqual(children);
      expect(
        await a.other.connection.query("SELECT id, parent_id FROM child2").then(([rows]) => rows),
      ).toEqual([{ id: 1, parent_id: "12" }]);
    } finally {
      await a.other.drop();
    }
  });

  it("agrees with itself for an account that sees more: only the referenced days are refused", async () => {
    const a = await arrange();
    try {
      const { deps } = await depsAs([
        `GRANT SELECT ON \`${a.other.name}\`.* TO {account}`,
        `GRANT SELECT, DELETE, TRIGGER ON \`${fx.db.name}\`.* TO {account}`,
        "GRANT PROCESS, REPLICATION CLIENT ON *.* TO {account}",
      ]);
      const summary = await startCleanup(deps, cleanupOf(a.parent, false));
      expect(summary).toMatchObject({ enqueued: 6, refused: 0 });
      const outcomes = [];
      for (const day of DAYS) {
        outcomes.push(
          await cleanDay(deps, cleanTask(a.parent, day)).then(
            () => "cleaned",
            (e: Error & { reason?: string }) => e.reason,
          ),
        );
      }
      expect(outcomes).toEqual(["foreign-key", "cleaned", "cleaned", "cleaned", "cleaned", "foreign-key"]);
    } finally {
      await a.other.drop();
    }
  });
});
