import { describe, expect, it } from "vitest";
import { createMysqlPartitionedTable } from "../../../adapters/mysql/mysql-partitioned-table";
import type { PartitionedTable } from "../../../ports/partitioned-table";
import { type CleanupFixture, dropOneWarehouseRow } from "../../../testing/cleanup-fixture";
import {
  JANUARY,
  MONTHLY,
  type PartitionedTables,
  usePartitionTests,
} from "../../../testing/partitioned-tables";
import { cleanPartitionTask } from "./clean-partition-task";

// On real MariaDB, Redis and DuckDB, as the archiver's least-privilege account (see openPartitionTests).
// What changes, late rows, deaths at each step, the operator's rotation and the throttles do to a partition's cleanup.

let fx: CleanupFixture;
let pt: PartitionedTables;

usePartitionTests((opened) => {
  ({ fx, pt } = opened);
});

describe("partition cleanup under faults", () => {
  it("puts the rows back when a row arrives between verification and the exchange; that day is refused", async () => {
    const name = await pt.table(MONTHLY, [...JANUARY], [...JANUARY]);
    const partitions = pt.detachingWith(async (detach) => {
      await fx.query(`INSERT INTO \`${name}\` (created_at, note) VALUES ('2024-01-12 09:00:00', 'late')`);
      await detach();
    });

    const { reports, failures } = await pt.clean(name, (queue) => fx.deps({ queue, partitions }));

    expect(reports[0]?.partition?.reason).toMatch(
      /after detaching: 2024-01-12 is refused: .*rows added: 1 row more than copied/,
    );
    expect(failures.map(({ task, error }) => [task.day, error.message])).toEqual([
      ["2024-01-12", expect.stringMatching(/rows added: 1 row more than copied/)],
    ]);
    expect(await pt.rowsByDay(name)).toEqual({ "2024-01-12": 5 });
    expect(await fx.deps().state.cleanedDays(name)).toEqual(["2024-01-10", "2024-01-11"]);
    expect(await pt.twins()).toEqual([]);
  });

  it("puts the rows back when the warehouse lost a row of a day: that day is refused, the others are cleaned", async () => {
    const name = await pt.table(MONTHLY, [...JANUARY], [...JANUARY]);
    await dropOneWarehouseRow(fx, name, "2024-01-11");
    // Last written before its copies, so only the twin is fingerprinted and judged against the warehouse.
    const cold = { ...createMysqlPartitionedTable(fx.pool), secondsSinceWrite: async () => 3600 };

    const { reports, failures } = await pt.clean(name, (queue) => fx.deps({ queue, partitions: cold }));

    expect(reports[0]?.partition?.reason).toMatch(
      /after detaching: 2024-01-11 is refused: .*the warehouse no longer holds the copy/,
    );
    expect(failures.map(({ task, error }) => [task.day, error.message])).toEqual([
      ["2024-01-11", expect.stringMatching(/the warehouse no longer holds the copy/)],
    ]);
    expect(await pt.rowsByDay(name)).toEqual({ "2024-01-11": 4 });
    expect(await fx.deps().state.cleanedDays(name)).toEqual(["2024-01-10", "2024-01-12"]);
    expect(await pt.twins()).toEqual([]);
  });

  it("a process that dies right after the exchange leaves a twin status lists; the retry verifies and drops it", async () => {
    const name = await pt.table(MONTHLY, [...JANUARY, "2024-02-10"], [...JANUARY]);
    const dies = pt.detachingWith(async (detach) => {
      await detach();
      throw new Error("killed");
    });
    const { queue, task } = await pt.partitionTask(name);
    expect(task.partition).toBe("p2024_01");

    await expect(cleanPartitionTask(fx.deps({ queue, partitions: dies }), task)).rejects.toThrow("killed");
    const twins = await pt.twins();
    expect(twins).toEqual([
      { table: name, partition: "p2024_01", twin: expect.stringMatching(/^archiver_twin__/), rows: 12 },
    ]);
    expect(await pt.rowsByDay(name)).toEqual({ "2024-02-10": 4 });

    // Deaths on the retries, while the twin is verified and once it was, change nothing either.
    const adapter = createMysqlPartitionedTable(fx.pool);
    const diesVerifying: PartitionedTable = {
      ...adapter,
      dayFigures: async (schema, column, rows, day) => {
        if ("twinOf" in rows) throw new Error("killed");
        return adapter.dayFigures(schema, column, rows, day);
      },
    };
    await expect(cleanPartitionTask(fx.deps({ queue, partitions: diesVerifying }), task)).rejects.toThrow(
      "killed",
    );
    expect((await pt.twins())[0]?.rows).toBe(12);
    const diesAgain = { ...adapter, dropTwin: () => Promise.reject(new Error("killed")) };
    await expect(cleanPartitionTask(fx.deps({ queue, partitions: diesAgain }), task)).rejects.toThrow(
      "killed",
    );
    expect((await pt.twins())[0]?.rows).toBe(12);

    const report = await cleanPartitionTask(fx.deps({ queue }), task);
    expect(report.partition).toMatchObject({ outcome: "cleaned", days: [...JANUARY], rowsDeleted: 12 });
    expect(await pt.twins()).toEqual([]);
    expect(await pt.rowsByDay(name)).toEqual({ "2024-02-10": 4 });
    expect(await fx.deps().state.cleanedDays(name)).toEqual([...JANUARY]);
    // The task again: nothing left to do.
    expect((await cleanPartitionTask(fx.deps({ queue }), task)).partition?.outcome).toBe("already-done");
  });

  it("finishes a twin whose emptied partition the operator dropped meanwhile: verified, dropped, days cleaned", async () => {
    const name = await pt.table(MONTHLY, [...JANUARY, "2024-02-10"], [...JANUARY]);
    const { queue, task } = await pt.partitionTask(name);
    const dies = pt.detachingWith(async (detach) => {
      await detach();
      throw new Error("killed");
    });
    await expect(cleanPartitionTask(fx.deps({ queue, partitions: dies }), task)).rejects.toThrow("killed");
    // The operator's rotation drops the partition it finds empty.
    await fx.query(`ALTER TABLE \`${name}\` DROP PARTITION p2024_01`);

    const report = await cleanPartitionTask(fx.deps({ queue }), task);

    expect(report.partition).toMatchObject({ outcome: "cleaned", days: [...JANUARY], rowsDeleted: 12 });
    expect(await pt.twins()).toEqual([]);
    expect(await pt.rowsByDay(name)).toEqual({ "2024-02-10": 4 });
    expect(await fx.deps().state.cleanedDays(name)).toEqual([...JANUARY]);
  });

  it("puts rows back where the table now keeps them when their partition was dropped while they were detached", async () => {
    const name = await pt.table(MONTHLY, [...JANUARY], [...JANUARY]);
    const original = await fx.query<{ id: number }>(`SELECT id FROM \`${name}\` ORDER BY id`);
    const { queue, task } = await pt.partitionTask(name);
    const changedThenDies = pt.detachingWith(async (detach) => {
      await fx.query(`INSERT INTO \`${name}\` (created_at, note) VALUES ('2024-01-12 09:00:00', 'late')`);
      await detach();
      throw new Error("killed");
    });
    await expect(cleanPartitionTask(fx.deps({ queue, partitions: changedThenDies }), task)).rejects.toThrow(
      "killed",
    );
    await fx.query(`ALTER TABLE \`${name}\` DROP PARTITION p2024_01`);

    // The twin is refused (2024-01-12 gained a row), its rows go back into p2024_02, which now holds January.
    const report = await cleanPartitionTask(fx.deps({ queue }), task);

    expect(report.partition?.reason).toMatch(/2024-01-12 is refused: .*rows added: 1 row more than copied/);
    expect(await pt.twins()).toEqual([]);
    const kept = await fx.query<{ id: number }>(
      `SELECT id FROM \`${name}\` WHERE note <> 'late' ORDER BY id`,
    );
    // The task's own day went the chunked path and was cleaned; every other original row is back.
    expect(kept).toEqual(original.slice(4));
    expect(await pt.rowsByDay(name)).toEqual({ "2024-01-11": 4, "2024-01-12": 5 });
    const [{ n } = { n: 0 }] = await fx.query<{ n: number }>(
      `SELECT COUNT(*) AS n FROM \`${name}\` PARTITION (p2024_02)`,
    );
    expect(Number(n)).toBe(9);
  });

  it("a process that dies while putting rows back loses none: the retry puts them back and refuses the day", async () => {
    const name = await pt.table(MONTHLY, [...JANUARY], [...JANUARY]);
    const original = await fx.query<{ id: number }>(`SELECT id FROM \`${name}\` ORDER BY id`);
    const insert = (at: string, note: string) =>
      fx.query(`INSERT INTO \`${name}\` (created_at, note) VALUES (?, ?)`, [at, note]);
    // A row changes the partition before the exchange (so its rows go back), another reaches the emptied
    // partition after it (so putting back needs the exchange back and an insert of the newcomer).
    const racing = async (detach: () => Promise<void>) => {
      await insert("2024-01-10 09:00:00", "before");
      await detach();
      await insert("2024-01-11 09:00:00", "after");
    };
    const dyingPutBack = pt.detachingWith(
      racing,
      createMysqlPartitionedTable(fx.pool, {
        beforePutBackCommit: () => Promise.reject(new Error("killed")),
      }),
    );
    const { queue, task } = await pt.partitionTask(name);

    await expect(cleanPartitionTask(fx.deps({ queue, partitions: dyingPutBack }), task)).rejects.toThrow(
      "killed",
    );
    // Died after the exchange back, inserting the newcomer: the detached rows are in the table, the newcomer in the twin.
    expect((await pt.twins())[0]?.rows).toBe(1);
    expect(await pt.rowsByDay(name)).toEqual({ "2024-01-10": 5, "2024-01-11": 4, "2024-01-12": 4 });

    // The retry finds the twin refused, puts it back, queues the partition's other days and refuses its own day.
    await expect(cleanPartitionTask(fx.deps({ queue }), task)).rejects.toThrow(
      /rows added: 1 row more than copied/,
    );
    expect(await pt.twins()).toEqual([]);
    const back = await fx.query<{ id: number }>(
      `SELECT id FROM \`${name}\` WHERE note NOT IN ('before', 'after') ORDER BY id`,
    );
    expect(back).toEqual(original);
    expect(await pt.rowsByDay(name)).toEqual({ "2024-01-10": 5, "2024-01-11": 5, "2024-01-12": 4 });
    expect(queue.tasks().map((queued) => queued.day)).toEqual(["2024-01-10", "2024-01-11", "2024-01-12"]);
  }, 30_000);

  it("waits for the throttles before the exchange and before the twin's reads: nothing is exchanged while a replica lags", async () => {
    const name = await pt.table(MONTHLY, [...JANUARY], [...JANUARY]);
    const { queue, task } = await pt.partitionTask(name);
    fx.probe.lags = [{ replica: "replica-1:3306", seconds: 30 }];
    const sleeps: number[] = [];
    const settings = { maxReplicaLagSeconds: 10, replicaUrls: ["mysql://replica-1"], maxWaitMs: 3000 };
    const lagging = fx.deps({ queue, settings, sleep: async (ms) => void sleeps.push(ms) });
    try {
      await expect(cleanPartitionTask(lagging, task)).rejects.toThrow(/replica/);
      expect(sleeps.length).toBeGreaterThan(0);
      expect(await pt.rowsByDay(name)).toEqual({ "2024-01-10": 4, "2024-01-11": 4, "2024-01-12": 4 });
      expect(await pt.twins()).toEqual([]);
    } finally {
      fx.probe.lags = [];
    }
    // A replica that starts lagging once the rows are detached holds back the twin's reads: the twin waits for the retry.
    const lagsOnceDetached = pt.detachingWith(async (detach) => {
      await detach();
      fx.probe.lags = [{ replica: "replica-1:3306", seconds: 30 }];
    });
    try {
      const paused = fx.deps({ queue, settings, partitions: lagsOnceDetached, sleep: async () => {} });
      await expect(cleanPartitionTask(paused, task)).rejects.toThrow(/replica/);
      expect((await pt.twins())[0]?.rows).toBe(12);
      expect(await fx.deps().state.cleanedDays(name)).toEqual([]);
    } finally {
      fx.probe.lags = [];
    }
    // Lag gone: the twin is read, then dropped.
    const report = await cleanPartitionTask(fx.deps({ queue, settings }), task);
    expect(report.partition).toMatchObject({ outcome: "cleaned", days: [...JANUARY] });
    expect(await pt.twins()).toEqual([]);
  });
});
