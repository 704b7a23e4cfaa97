import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cleanupOf, closeAccounts, depsAs } from "../../../testing/cleanup/accounts";
import { cleanupFixture, fx } from "../../../testing/cleanup/file-fixture";
import { cleanTask, refusal } from "../../../testing/cleanup-fixture";
import { uniqueName } from "../../../testing/test-services";
import { startCleanup } from "../start-cleanup";
import { cleanDay } from "./clean-day";

beforeAll(cleanupFixture.create);
afterAll(cleanupFixture.close);
afterEach(closeAccounts);

/** Grants of the cleanup except TRIGGER, on the fixture's database. */
const WITHOUT_TRIGGER = (database: string) => [
  `GRANT SELECT, DELETE ON \`${database}\`.* TO {account}`,
  "GRANT PROCESS ON *.* TO {account}",
];

describe("triggers an account cannot be shown", () => {
  it("refuse every day, even with allow_delete_triggers, naming TRIGGER: the rows stay and no trigger runs", async () => {
    const table = await fx.keyedTable(["2024-10-10"], 3);
    const audit = uniqueName("audit");
    await fx.query(`CREATE TABLE \`${audit}\` (order_id BIGINT UNSIGNED NOT NULL) ENGINE=InnoDB`);
    await fx.query(
      `CREATE TRIGGER \`${uniqueName("trg")}\` AFTER DELETE ON \`${table}\` FOR EACH ROW
         INSERT INTO \`${audit}\` (order_id) VALUES (OLD.id)`,
    );
    await fx.copy(table, "2024-10-10");
    const { deps, account } = await depsAs(WITHOUT_TRIGGER(fx.db.name));
    const grant = `GRANT TRIGGER ON \`${fx.db.name}\`.\`${table}\` TO ${account.account};`;

    // Planning cannot see the trigger, and says so; every task refuses, even one that allows triggers.
    for (const allow of [false, true]) {
      const message = { ...cleanupOf(table, true), allow_delete_triggers: allow };
      expect((await startCleanup(deps, message)).sideEffectsUnseen).toContain("TRIGGER");
    }
    for (const allow of [false, true]) {
      const task = await refusal(
        cleanDay(deps, { ...cleanTask(table, "2024-10-10"), allowDeleteTriggers: allow }),
      );
      expect(task.reason).toBe("privilege");
      expect(task.message).toContain(grant);
    }

    expect(await fx.ids(table)).toEqual(["1", "2", "3"]);
    expect(await fx.query(`SELECT * FROM \`${audit}\``)).toEqual([]);
  });
});

describe("a throttle whose signal the account cannot read", () => {
  it("refuses the task before its first delete with the grant to add, instead of running blind or waiting; granted, it reads the signal", async () => {
    const table = await fx.keyedTable(["2024-10-11"], 3);
    await fx.copy(table, "2024-10-11");
    // The replica is this same server reached as the archiver's account: SHOW SLAVE STATUS needs SLAVE MONITOR
    // (MariaDB 10.5.9+) or REPLICATION CLIENT whether or not the server replicates.
    const grants = [
      `GRANT SELECT, DELETE, TRIGGER ON \`${fx.db.name}\`.* TO {account}`,
      "GRANT PROCESS ON *.* TO {account}",
    ];
    const throttled = { selfAsReplica: true, settings: { maxReplicaLagSeconds: 1, maxWaitMs: 1_000 } };
    const { deps, account } = await depsAs(grants, throttled);

    // Only tasks throttle: planning does not read the signal, and the task refuses before any delete.
    const summary = await startCleanup(deps, cleanupOf(table, true));
    expect(summary).toMatchObject({ dryRun: true, verified: 1, refused: 0 });
    const task = await refusal(cleanDay(deps, cleanTask(table, "2024-10-11")));
    expect(task.reason).toBe("privilege");
    expect(task.message).toMatch(
      new RegExp(`GRANT (SLAVE MONITOR|REPLICATION CLIENT) ON \\*\\.\\* TO ${account.account};`),
    );
    expect(await fx.ids(table)).toEqual(["1", "2", "3"]);

    const granted = await depsAs([...grants, "GRANT SLAVE MONITOR ON *.* TO {account}"], throttled);
    // Granted, the task gets past its account check and reads the lag: this server is no replica, so it waits.
    await expect(cleanDay(granted.deps, cleanTask(table, "2024-10-11"))).rejects.toThrow(/lag unknown/);
    expect(await fx.ids(table)).toEqual(["1", "2", "3"]);
  });
});
