import { describe, expect, it } from "vitest";
import { DOCUMENTED_GRANTS } from "../../../testing/archiver-account";
import type { CleanupFixture } from "../../../testing/cleanup-fixture";
import { createMemoryTaskQueue } from "../../../testing/fakes/memory-task-queue";
import {
  cleanupMessage,
  JANUARY,
  MONTHLY,
  type PartitionedTables,
  usePartitionTests,
} from "../../../testing/partitioned-tables";
import { uniqueName } from "../../../testing/test-services";
import { cleanDay } from "../day/clean-day";
import { startCleanup } from "../start-cleanup";

// On real MariaDB, Redis and DuckDB, as the archiver's least-privilege account (see openPartitionTests).
// When a partition's days take the chunked path instead, and what the dry run says; emptying partitions is in
// clean-partition.mysql.test.ts, the faults in clean-partition-faults.mysql.test.ts.

let fx: CleanupFixture;
let pt: PartitionedTables;

usePartitionTests((opened) => {
  ({ fx, pt } = opened);
});

describe("which path a partition takes, and why", () => {
  it("cleans day by day a table whose DELETE triggers the message allows: they fire for every row", async () => {
    const name = await pt.table(MONTHLY, [...JANUARY], [...JANUARY]);
    const log = uniqueName("deleted");
    await fx.query(`CREATE TABLE \`${log}\` (id BIGINT NOT NULL)`);
    await fx.query(
      `CREATE TRIGGER \`${log}_t\` AFTER DELETE ON \`${name}\` FOR EACH ROW INSERT INTO \`${log}\` VALUES (OLD.id)`,
    );
    const queue = createMemoryTaskQueue();
    const allow = { ...cleanupMessage(name, false), allow_delete_triggers: true };

    const summary = await startCleanup(fx.deps({ queue }), allow);

    expect(summary.partitions).toEqual([
      {
        partition: "p2024_01",
        path: "chunked",
        days: [...JANUARY],
        reason: expect.stringMatching(/DELETE triggers .* are to fire for every row/),
      },
    ]);
    for (let task = queue.take(); task; task = queue.take()) {
      if (task.kind !== "clean") throw new Error("only cleanup tasks are expected");
      await cleanDay(fx.deps({ queue }), task);
      queue.finish(task);
    }
    expect(await pt.rowsByDay(name)).toEqual({});
    const [{ n } = { n: 0 }] = await fx.query<{ n: number }>(`SELECT COUNT(*) AS n FROM \`${log}\``);
    expect(Number(n)).toBe(12);
  });

  it("cleans day by day a table with an INSERT trigger: rows put back after an exchange would fire it again", async () => {
    const name = await pt.table(MONTHLY, [...JANUARY], [...JANUARY]);
    const log = uniqueName("inserted");
    await fx.query(`CREATE TABLE \`${log}\` (id BIGINT NOT NULL)`);
    await fx.query(
      `CREATE TRIGGER \`${log}_t\` AFTER INSERT ON \`${name}\` FOR EACH ROW INSERT INTO \`${log}\` VALUES (NEW.id)`,
    );
    let detached = 0;
    const watched = pt.detachingWith(async (detach) => {
      detached += 1;
      await detach();
    });

    const { summary, failures } = await pt.clean(name, (queue) => fx.deps({ queue, partitions: watched }));

    expect(summary.partitions).toEqual([
      {
        partition: "p2024_01",
        path: "chunked",
        days: [...JANUARY],
        reason: expect.stringMatching(
          /INSERT triggers \(.*_t\) would fire again for rows an exchange has to put back/,
        ),
      },
    ]);
    expect(failures).toEqual([]);
    expect(detached).toBe(0);
    expect(await pt.rowsByDay(name)).toEqual({});
    const [{ n } = { n: 0 }] = await fx.query<{ n: number }>(`SELECT COUNT(*) AS n FROM \`${log}\``);
    expect(Number(n)).toBe(0);
  });

  it("a dry run says, per partition, which path it would take and why, and changes nothing", async () => {
    const name = await pt.table(
      MONTHLY,
      [...JANUARY, "2024-02-10", "2024-02-11", "2024-03-05"],
      [...JANUARY, "2024-02-10", "2024-03-05"],
    );
    const before = await pt.rowsByDay(name);

    const summary = await startCleanup(fx.deps(), cleanupMessage(name, true));

    expect(summary.partitions).toEqual([
      { partition: "p2024_01", path: "exchange", days: [...JANUARY] },
      {
        partition: "p2024_02",
        path: "chunked",
        days: ["2024-02-10"],
        reason: expect.stringMatching(/rows of 2024-02-11, which is not a migrated day/),
      },
      {
        partition: "pmax",
        path: "chunked",
        days: ["2024-03-05"],
        reason: "it is the MAXVALUE partition, where new rows arrive",
      },
    ]);
    const lines = fx.logs.filter(
      (line) => line.table === name && line.message === "cleanup dry run: partition",
    );
    expect(lines[0]).toMatchObject({
      partition: "p2024_01",
      path: "exchange",
      rowsToDetach: 12,
      statement: expect.stringMatching(/EXCHANGE PARTITION `p2024_01` WITH TABLE `archiver_twin__/),
    });
    expect(await pt.rowsByDay(name)).toEqual(before);
    expect(await pt.twins()).toEqual([]);
  });

  it('a message with "exchange_partitions": false cleans every day in chunks, and its dry run says why', async () => {
    const name = await pt.table(MONTHLY, [...JANUARY], [...JANUARY]);
    const chunkedOnly = { ...cleanupMessage(name, true), exchange_partitions: false };
    const reason = 'the cleanup message sets "exchange_partitions": false';

    const dry = await startCleanup(fx.deps(), chunkedOnly);
    expect(dry.partitions).toEqual([{ partition: "p2024_01", path: "chunked", days: [...JANUARY], reason }]);

    const queue = createMemoryTaskQueue();
    const summary = await startCleanup(fx.deps({ queue }), { ...chunkedOnly, dry_run: false });
    expect(summary.partitions).toEqual(dry.partitions);
    const tasks = queue.tasks();
    expect(tasks.map((task) => [task.day, "partition" in task])).toEqual(JANUARY.map((day) => [day, false]));
    for (let task = queue.take(); task; task = queue.take()) {
      if (task.kind !== "clean") throw new Error("only cleanup tasks are expected");
      expect(await cleanDay(fx.deps({ queue }), task)).toMatchObject({ outcome: "cleaned", rowsDeleted: 4 });
      queue.finish(task);
    }
    expect(await pt.rowsByDay(name)).toEqual({});
    expect(await pt.twins()).toEqual([]);
  });

  it("a table partitioned by hash is cleaned day by day, and the dry run says why", async () => {
    const name = await pt.table("PARTITION BY HASH (id) PARTITIONS 3", [...JANUARY], [...JANUARY]);

    const dry = await startCleanup(fx.deps(), cleanupMessage(name, true));
    expect(dry.partitions).toEqual([
      {
        partition: "*",
        path: "chunked",
        days: [...JANUARY],
        reason: expect.stringMatching(/PARTITION BY HASH .*only RANGE partitions of the filter column/),
      },
    ]);
    const { reports, failures } = await pt.clean(name);
    expect(failures).toEqual([]);
    expect(reports.map((report) => [report.day, report.outcome, report.partition])).toEqual(
      JANUARY.map((day) => [day, "cleaned", undefined]),
    );
    expect(await pt.rowsByDay(name)).toEqual({});
  });

  it("an account without the grants to exchange takes the chunked path, naming the GRANT", async () => {
    const name = await pt.table(MONTHLY, [...JANUARY], [...JANUARY]);
    await fx.account.change([`REVOKE CREATE, DROP, ALTER, INSERT ON \`${fx.db.name}\`.* FROM {account}`]);
    try {
      const { summary, failures } = await pt.clean(name);
      expect(summary.partitions[0]).toMatchObject({
        path: "chunked",
        reason: expect.stringMatching(/GRANT CREATE, DROP, ALTER, INSERT ON/),
      });
      expect(failures).toEqual([]);
      expect(await pt.rowsByDay(name)).toEqual({});
    } finally {
      await fx.account.change(DOCUMENTED_GRANTS.partitions(fx.db.name));
    }
  });
});
