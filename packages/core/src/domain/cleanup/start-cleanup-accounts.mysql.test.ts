import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cleanupOf, closeAccounts, connectAs, depsAs } from "../../testing/cleanup/accounts";
import { cleanupFixture, fx } from "../../testing/cleanup/file-fixture";
import { cleanTask, refusal } from "../../testing/cleanup-fixture";
import { cleanDay } from "./day/clean-day";
import { startCleanup } from "./start-cleanup";

// Production runs the cleanup message and its tasks as two database users: the entry function's, which plans
// and holds SELECT only, and the task handler's, which deletes. Each proves what it does itself.

beforeAll(cleanupFixture.create);
afterAll(cleanupFixture.close);
afterEach(closeAccounts);

const DAYS = ["2024-11-01", "2024-11-02", "2024-11-03"] as const;

/** The entry function's user: SELECT on the database, nothing else. */
const entryGrants = () => [`GRANT SELECT ON \`${fx.db.name}\`.* TO {account}`];

/**
 * The task handler's user, as the docs list it, with DELETE granted on the table alone: a table privilege
 * revoked reaches the pool's open connections at their next statement (a database one waits for a USE).
 */
const taskGrants = (table: string) => [
  `GRANT SELECT, TRIGGER ON \`${fx.db.name}\`.* TO {account}`,
  `GRANT DELETE ON \`${fx.db.name}\`.\`${table}\` TO {account}`,
  "GRANT PROCESS ON *.* TO {account}",
];

async function copiedTable(): Promise<string> {
  const table = await fx.keyedTable(DAYS, 3);
  for (const day of DAYS) await fx.copy(table, day);
  return table;
}

describe("cleanup planned by a SELECT-only account, carried out by another", () => {
  it("the SELECT-only account dry-runs and queues the cleanup; the task account cleans the days", async () => {
    const table = await copiedTable();
    const entry = await depsAs(entryGrants());
    const task = await depsAs(taskGrants(table));

    const dry = await startCleanup(entry.deps, cleanupOf(table, true));
    expect(dry).toMatchObject({ dryRun: true, migratedDays: 3, verified: 3, refused: 0, rowsToDelete: 9 });
    expect(dry.sideEffectsUnseen).toContain("GRANT PROCESS ON *.*");
    expect(await fx.ids(table)).toHaveLength(9);

    const queued = await startCleanup(entry.deps, cleanupOf(table, false));
    expect(queued).toMatchObject({ dryRun: false, enqueued: 3, refused: 0 });
    expect(fx.logs.find((l) => l.message === "cleanup account check" && l.table === table)?.checks).toEqual([
      expect.objectContaining({ for: "cleanup", privilege: expect.stringMatching(/^SELECT ON/), ok: true }),
    ]);

    for (const day of DAYS) {
      expect(await cleanDay(task.deps, cleanTask(table, day))).toMatchObject({ outcome: "cleaned" });
    }
    expect(await fx.ids(table)).toEqual([]);
  });

  it("an account that cannot read the table is refused at the message, naming SELECT", async () => {
    const table = await copiedTable();
    // USAGE alone: it may see the table's columns through another table grant, never read its rows.
    const entry = await depsAs([`GRANT INSERT ON \`${fx.db.name}\`.\`${table}\` TO {account}`]);
    const error = await refusal(startCleanup(entry.deps, cleanupOf(table, false)));
    expect(error.reason).toBe("privilege");
    expect(error.message).toContain(
      `GRANT SELECT ON \`${fx.db.name}\`.\`${table}\` TO ${entry.account.account};`,
    );
    expect((await fx.queue.queuedDays("clean", table)).size).toBe(0);
  });

  it("a task account without DELETE refuses its day in the message step's words, before deleting anything", async () => {
    const table = await copiedTable();
    const entry = await depsAs(entryGrants());
    const task = await depsAs([
      `GRANT SELECT, TRIGGER ON \`${fx.db.name}\`.* TO {account}`,
      "GRANT PROCESS ON *.* TO {account}",
    ]);
    await startCleanup(entry.deps, cleanupOf(table, false));
    const before = await fx.ids(table);

    for (const day of DAYS) {
      const error = await refusal(cleanDay(task.deps, cleanTask(table, day)));
      expect(error.reason).toBe("privilege");
      expect(error.message).toBe(
        `cleanup of "${table}" refused: the archiver's MySQL account cannot delete rows of ` +
          `\`${fx.db.name}\`.\`${table}\` (cleanup; needs DELETE ON \`${fx.db.name}\`.\`${table}\`); ` +
          "nothing was checked or deleted. Grant it with: " +
          `GRANT DELETE ON \`${fx.db.name}\`.\`${table}\` TO ${task.account.account};`,
      );
      // Refused before the day was touched: no cleanup state, no lease left.
      expect(await fx.deps().state.read({ table, day })).toBeUndefined();
    }
    expect(await fx.ids(table)).toEqual(before);
    expect(await fx.deps().state.cleanedDays(table)).toEqual([]);
  });

  it("a shortfall is not remembered: granted DELETE, the same process's next task cleans", async () => {
    const table = await copiedTable();
    const task = await depsAs([
      `GRANT SELECT, TRIGGER ON \`${fx.db.name}\`.* TO {account}`,
      "GRANT PROCESS ON *.* TO {account}",
    ]);
    expect((await refusal(cleanDay(task.deps, cleanTask(table, DAYS[0])))).reason).toBe("privilege");
    await task.account.change([`GRANT DELETE ON \`${fx.db.name}\`.\`${table}\` TO {account}`]);
    expect(await cleanDay(task.deps, cleanTask(table, DAYS[0]))).toMatchObject({ outcome: "cleaned" });
  });

  it("a DELETE revoked after the process proved it: the delete fails on the server's refusal and no row goes", async () => {
    const table = await copiedTable();
    const task = await depsAs(taskGrants(table));
    expect(await cleanDay(task.deps, cleanTask(table, DAYS[0]))).toMatchObject({ outcome: "cleaned" });
    const left = await fx.ids(table);
    expect(left).toHaveLength(6);

    await task.account.change([`REVOKE DELETE ON \`${fx.db.name}\`.\`${table}\` FROM {account}`]);
    // The proof is kept for the process, so this task goes as far as its first delete, which the server refuses.
    await expect(cleanDay(task.deps, cleanTask(table, DAYS[1]))).rejects.toThrow(/DELETE command denied/);
    expect(await fx.ids(table)).toEqual(left);
    expect(await fx.deps().state.cleanedDays(table)).toEqual([DAYS[0]]);

    // A new process (another instance, or a restart) proves the account again and refuses up front.
    const restarted = connectAs(task.account);
    const error = await refusal(cleanDay(restarted, cleanTask(table, DAYS[1])));
    expect(error.message).toContain(`GRANT DELETE ON \`${fx.db.name}\`.\`${table}\``);
    expect(await fx.ids(table)).toEqual(left);

    await task.account.change([`GRANT DELETE ON \`${fx.db.name}\`.\`${table}\` TO {account}`]);
    // Granted again, the retry resumes the day where the refused delete left it and finishes it.
    expect(await cleanDay(task.deps, cleanTask(table, DAYS[1]))).toMatchObject({ outcome: "cleaned" });
    expect(await fx.ids(table)).toHaveLength(3);
  });
});
