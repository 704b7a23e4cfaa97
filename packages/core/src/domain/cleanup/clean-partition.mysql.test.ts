import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMysqlPartitionedTable } from "../../adapters/mysql/mysql-partitioned-table";
import type { PartitionedTable } from "../../ports/partitioned-table";
import { DOCUMENTED_GRANTS } from "../../testing/archiver-account";
import { type CleanupFixture, createCleanupFixture } from "../../testing/cleanup-fixture";
import { createMemoryTaskQueue, type MemoryTaskQueue } from "../../testing/fakes/memory-task-queue";
import { uniqueName } from "../../testing/test-services";
import type { CalendarDay } from "../days/calendar-day";
import type { CleanDayTask } from "../tasks/task-payload";
import { cleanDay, type DayCleanupReport } from "./clean-day";
import type { CleanupDeps } from "./cleanup-deps";
import { startCleanup } from "./start-cleanup";

// Partitioned tables on real MariaDB, Redis and DuckDB, cleaned by an account holding the documented grants
// (cleanup, plus what emptying a partition takes). Each table's days are copied by the real copy task.

let fx: CleanupFixture;

beforeAll(async () => {
  fx = await createCleanupFixture();
  await fx.account.change(DOCUMENTED_GRANTS.partitions(fx.db.name));
});

afterAll(async () => {
  await fx?.close();
});

const COLUMNS = `id BIGINT NOT NULL AUTO_INCREMENT, created_at DATETIME(6) NOT NULL, note VARCHAR(40) NULL,
  note_length INT AS (CHAR_LENGTH(note)) STORED,
  PRIMARY KEY (id, created_at), KEY (created_at)`;

/** Monthly `RANGE (TO_DAYS(created_at))` partitions for January and February 2024, and MAXVALUE. */
const MONTHLY = `PARTITION BY RANGE (TO_DAYS(created_at)) (
  PARTITION p2024_01 VALUES LESS THAN (TO_DAYS('2024-02-01')),
  PARTITION p2024_02 VALUES LESS THAN (TO_DAYS('2024-03-01')),
  PARTITION pmax VALUES LESS THAN MAXVALUE)`;

/** Daily `RANGE COLUMNS(created_at)` partitions for 2024-01-10..12, and MAXVALUE. */
const DAILY = `PARTITION BY RANGE COLUMNS (created_at) (
  PARTITION d0110 VALUES LESS THAN ('2024-01-11'),
  PARTITION d0111 VALUES LESS THAN ('2024-01-12'),
  PARTITION d0112 VALUES LESS THAN ('2024-01-13'),
  PARTITION dmax VALUES LESS THAN (MAXVALUE))`;

/** Monthly `RANGE COLUMNS(created_at)` partitions for January 2024 and later. */
const MONTHLY_COLUMNS = `PARTITION BY RANGE COLUMNS (created_at) (
  PARTITION m2024_01 VALUES LESS THAN ('2024-02-01 00:00:00'),
  PARTITION mmax VALUES LESS THAN (MAXVALUE))`;

/** A table partitioned as `partitioning`, four rows on each day; `copied` days are copied by the real copy task. */
async function table(
  partitioning: string,
  days: readonly CalendarDay[],
  copied: readonly CalendarDay[],
): Promise<string> {
  const name = uniqueName("events");
  await fx.query(`CREATE TABLE \`${name}\` (${COLUMNS}) ${partitioning}`);
  for (const day of days) {
    for (let hour = 1; hour <= 4; hour++) {
      await fx.query(`INSERT INTO \`${name}\` (created_at, note) VALUES (?, ?)`, [
        `${day} 0${hour}:00:00`,
        `${day} #${hour}`,
      ]);
    }
  }
  for (const day of copied) await fx.copy(name, day);
  return name;
}

/** Rows left, by day. */
async function rowsByDay(name: string): Promise<Record<string, number>> {
  const rows = await fx.query<{ d: string; n: number }>(
    `SELECT DATE_FORMAT(created_at, '%Y-%m-%d') AS d, COUNT(*) AS n FROM \`${name}\` GROUP BY d ORDER BY d`,
  );
  return Object.fromEntries(rows.map((row) => [row.d, Number(row.n)]));
}

interface Run {
  readonly reports: DayCleanupReport[];
  readonly failures: { task: CleanDayTask; error: Error }[];
}

/** Queues the table's cleanup and runs every task it queues (the ones tasks queue too), each once. */
async function clean(
  name: string,
  deps: (queue: MemoryTaskQueue) => CleanupDeps = (queue) => fx.deps({ queue }),
) {
  const queue = createMemoryTaskQueue();
  const summary = await startCleanup(deps(queue), message(name, false));
  const run: Run = { reports: [], failures: [] };
  for (let task = queue.take(); task; task = queue.take()) {
    if (task.kind !== "clean") throw new Error("only cleanup tasks are expected");
    try {
      run.reports.push(await cleanDay(deps(queue), task));
    } catch (error) {
      run.failures.push({ task, error: error as Error });
    }
    queue.finish(task);
  }
  return { summary, ...run };
}

const message = (name: string, dryRun: boolean) =>
  ({
    clean_table: name,
    filter_column: "created_at",
    dry_run: dryRun,
    recopy_changed_days: false,
    allow_delete_triggers: false,
  }) as const;

/** The archiver's partition adapter with `detach` wrapped. */
function detachingWith(
  then: (detach: () => Promise<void>) => Promise<void>,
  partitions: PartitionedTable = createMysqlPartitionedTable(fx.pool),
): PartitionedTable {
  return { ...partitions, detach: (table, partition) => then(() => partitions.detach(table, partition)) };
}

const JANUARY = ["2024-01-10", "2024-01-11", "2024-01-12"] as const;

describe("cleanup of a range-partitioned table", () => {
  it("empties a fully migrated monthly partition at once; a partly migrated one goes day by day", async () => {
    const name = await table(MONTHLY, [...JANUARY, "2024-02-10", "2024-02-11"], [...JANUARY, "2024-02-10"]);

    const { summary, reports, failures } = await clean(name);

    expect(summary.partitions).toEqual([
      { partition: "p2024_01", path: "exchange", days: [...JANUARY] },
      { partition: "p2024_02", path: "exchange", days: ["2024-02-10"] },
    ]);
    expect(failures).toEqual([]);
    expect(reports.map((report) => report.partition?.outcome)).toEqual(["cleaned", "chunked"]);
    expect(reports[0]?.partition).toMatchObject({ days: [...JANUARY], rowsDeleted: 12 });
    expect(reports[1]?.partition?.reason).toMatch(/rows of 2024-02-11, which is not a migrated day/);
    expect(reports[1]).toMatchObject({ day: "2024-02-10", outcome: "cleaned", rowsDeleted: 4 });
    expect(await rowsByDay(name)).toEqual({ "2024-02-11": 4 });
    expect(await fx.deps().state.cleanedDays(name)).toEqual([...JANUARY, "2024-02-10"]);
    expect(await createMysqlPartitionedTable(fx.pool).detachedTwins()).toEqual([]);
    // The partition itself stays, empty, for the operator's own partition rotation.
    const [{ n } = { n: 0 }] = await fx.query<{ n: number }>(
      "SELECT COUNT(*) AS n FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?",
      [name],
    );
    expect(Number(n)).toBe(3);
  });

  it("empties daily RANGE COLUMNS partitions one task each", async () => {
    const name = await table(DAILY, [...JANUARY, "2024-01-13"], [...JANUARY]);

    const { summary, reports, failures } = await clean(name);

    expect(summary.partitions.map((p) => [p.partition, p.path, p.days])).toEqual([
      ["d0110", "exchange", ["2024-01-10"]],
      ["d0111", "exchange", ["2024-01-11"]],
      ["d0112", "exchange", ["2024-01-12"]],
    ]);
    expect(failures).toEqual([]);
    expect(reports.map((report) => [report.partition?.outcome, report.rowsDeleted])).toEqual([
      ["cleaned", 4],
      ["cleaned", 4],
      ["cleaned", 4],
    ]);
    expect(await rowsByDay(name)).toEqual({ "2024-01-13": 4 });
  });

  it.each([
    [
      "YEAR",
      "PARTITION BY RANGE (YEAR(created_at)) (PARTITION y2023 VALUES LESS THAN (2024), PARTITION ymax VALUES LESS THAN MAXVALUE)",
      "y2023",
    ],
    [
      "TO_SECONDS",
      "PARTITION BY RANGE (TO_SECONDS(created_at)) (PARTITION s1 VALUES LESS THAN (TO_SECONDS('2023-12-31')), PARTITION smax VALUES LESS THAN MAXVALUE)",
      "s1",
    ],
  ])("empties a partition of RANGE on %s", async (_fn, partitioning, partition) => {
    const days = ["2023-12-29", "2023-12-30"];
    const name = await table(partitioning, [...days, "2024-01-02"], days);

    const { summary, reports, failures } = await clean(name);

    expect(summary.partitions).toEqual([{ partition, path: "exchange", days }]);
    expect(failures).toEqual([]);
    expect(reports[0]?.partition).toMatchObject({ outcome: "cleaned", days, rowsDeleted: 8 });
    expect(await rowsByDay(name)).toEqual({ "2024-01-02": 4 });
  });

  it("cleans day by day a table whose DELETE triggers the message allows: they fire for every row", async () => {
    const name = await table(MONTHLY, [...JANUARY], [...JANUARY]);
    const log = uniqueName("deleted");
    await fx.query(`CREATE TABLE \`${log}\` (id BIGINT NOT NULL)`);
    await fx.query(
      `CREATE TRIGGER \`${log}_t\` AFTER DELETE ON \`${name}\` FOR EACH ROW INSERT INTO \`${log}\` VALUES (OLD.id)`,
    );
    const queue = createMemoryTaskQueue();
    const allow = { ...message(name, false), allow_delete_triggers: true };

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
    expect(await rowsByDay(name)).toEqual({});
    const [{ n } = { n: 0 }] = await fx.query<{ n: number }>(`SELECT COUNT(*) AS n FROM \`${log}\``);
    expect(Number(n)).toBe(12);
  });

  it("keeps a row updated after its copy: its day is refused, the partition's other days go day by day", async () => {
    const name = await table(MONTHLY_COLUMNS, [...JANUARY], [...JANUARY]);
    const layout = await createMysqlPartitionedTable(fx.pool).partitioning(name);
    expect(layout).toMatchObject({ kind: "range", column: "created_at" });
    await fx.query(`UPDATE \`${name}\` SET note = 'changed' WHERE created_at = '2024-01-11 02:00:00'`);

    const { summary, reports, failures } = await clean(name);

    expect(summary.partitions.map((p) => [p.partition, p.path])).toEqual([["m2024_01", "exchange"]]);
    expect(reports[0]?.partition).toMatchObject({ outcome: "chunked" });
    expect(reports[0]?.partition?.reason).toMatch(/2024-01-11 is refused: .*source changed since the copy/);
    expect(failures.map(({ task, error }) => [task.day, error.message])).toEqual([
      ["2024-01-11", expect.stringMatching(/source changed since the copy/)],
    ]);
    expect(await rowsByDay(name)).toEqual({ "2024-01-11": 4 });
    const [{ note } = { note: "" }] = await fx.query<{ note: string }>(
      `SELECT note FROM \`${name}\` WHERE created_at = '2024-01-11 02:00:00'`,
    );
    expect(note).toBe("changed");
    expect(await fx.deps().state.cleanedDays(name)).toEqual(["2024-01-10", "2024-01-12"]);
  });

  it("puts the rows back when a row arrives between verification and the exchange; that day is refused", async () => {
    const name = await table(MONTHLY, [...JANUARY], [...JANUARY]);
    const partitions = detachingWith(async (detach) => {
      await fx.query(`INSERT INTO \`${name}\` (created_at, note) VALUES ('2024-01-12 09:00:00', 'late')`);
      await detach();
    });

    const { reports, failures } = await clean(name, (queue) => fx.deps({ queue, partitions }));

    expect(reports[0]?.partition?.reason).toMatch(
      /after detaching: 2024-01-12 changed between its verification/,
    );
    expect(failures.map(({ task, error }) => [task.day, error.message])).toEqual([
      ["2024-01-12", expect.stringMatching(/rows added: 1 row more than copied/)],
    ]);
    expect(await rowsByDay(name)).toEqual({ "2024-01-12": 5 });
    expect(await fx.deps().state.cleanedDays(name)).toEqual(["2024-01-10", "2024-01-11"]);
    expect(await createMysqlPartitionedTable(fx.pool).detachedTwins()).toEqual([]);
  });

  it("a process that dies right after the exchange leaves a twin status lists; the retry verifies and drops it", async () => {
    const name = await table(MONTHLY, [...JANUARY, "2024-02-10"], [...JANUARY]);
    const dies = detachingWith(async (detach) => {
      await detach();
      throw new Error("killed");
    });
    const queue = createMemoryTaskQueue();
    await startCleanup(fx.deps({ queue }), message(name, false));
    const task = queue.take();
    if (task?.kind !== "clean") throw new Error("expected the partition's task");
    expect(task.partition).toBe("p2024_01");

    await expect(cleanDay(fx.deps({ queue, partitions: dies }), task)).rejects.toThrow("killed");
    const twins = await createMysqlPartitionedTable(fx.pool).detachedTwins();
    expect(twins).toEqual([
      { table: name, partition: "p2024_01", twin: expect.stringMatching(/^archiver_twin__/), rows: 12 },
    ]);
    expect(await rowsByDay(name)).toEqual({ "2024-02-10": 4 });

    // Deaths on the retries, while the twin is verified and once it was, change nothing either.
    const adapter = createMysqlPartitionedTable(fx.pool);
    const diesVerifying: PartitionedTable = {
      ...adapter,
      dayFigures: async (schema, column, rows, day) => {
        if ("twinOf" in rows && day === "2024-01-11") throw new Error("killed");
        return adapter.dayFigures(schema, column, rows, day);
      },
    };
    await expect(cleanDay(fx.deps({ queue, partitions: diesVerifying }), task)).rejects.toThrow("killed");
    expect((await createMysqlPartitionedTable(fx.pool).detachedTwins())[0]?.rows).toBe(12);
    const diesAgain = { ...adapter, dropTwin: () => Promise.reject(new Error("killed")) };
    await expect(cleanDay(fx.deps({ queue, partitions: diesAgain }), task)).rejects.toThrow("killed");
    expect((await createMysqlPartitionedTable(fx.pool).detachedTwins())[0]?.rows).toBe(12);

    const report = await cleanDay(fx.deps({ queue }), task);
    expect(report.partition).toMatchObject({ outcome: "cleaned", days: [...JANUARY], rowsDeleted: 12 });
    expect(await createMysqlPartitionedTable(fx.pool).detachedTwins()).toEqual([]);
    expect(await rowsByDay(name)).toEqual({ "2024-02-10": 4 });
    expect(await fx.deps().state.cleanedDays(name)).toEqual([...JANUARY]);
    // The task again: nothing left to do.
    expect((await cleanDay(fx.deps({ queue }), task)).partition?.outcome).toBe("already-done");
  });

  it("finishes a twin whose emptied partition the operator dropped meanwhile: verified, dropped, days cleaned", async () => {
    const name = await table(MONTHLY, [...JANUARY, "2024-02-10"], [...JANUARY]);
    const queue = createMemoryTaskQueue();
    await startCleanup(fx.deps({ queue }), message(name, false));
    const task = queue.take();
    if (task?.kind !== "clean") throw new Error("expected the partition's task");
    const dies = detachingWith(async (detach) => {
      await detach();
      throw new Error("killed");
    });
    await expect(cleanDay(fx.deps({ queue, partitions: dies }), task)).rejects.toThrow("killed");
    // The operator's rotation drops the partition it finds empty.
    await fx.query(`ALTER TABLE \`${name}\` DROP PARTITION p2024_01`);

    const report = await cleanDay(fx.deps({ queue }), task);

    expect(report.partition).toMatchObject({ outcome: "cleaned", days: [...JANUARY], rowsDeleted: 12 });
    expect(await createMysqlPartitionedTable(fx.pool).detachedTwins()).toEqual([]);
    expect(await rowsByDay(name)).toEqual({ "2024-02-10": 4 });
    expect(await fx.deps().state.cleanedDays(name)).toEqual([...JANUARY]);
  });

  it("puts rows back where the table now keeps them when their partition was dropped while they were detached", async () => {
    const name = await table(MONTHLY, [...JANUARY], [...JANUARY]);
    const original = await fx.query<{ id: number }>(`SELECT id FROM \`${name}\` ORDER BY id`);
    const queue = createMemoryTaskQueue();
    await startCleanup(fx.deps({ queue }), message(name, false));
    const task = queue.take();
    if (task?.kind !== "clean") throw new Error("expected the partition's task");
    const changedThenDies = detachingWith(async (detach) => {
      await fx.query(`INSERT INTO \`${name}\` (created_at, note) VALUES ('2024-01-12 09:00:00', 'late')`);
      await detach();
      throw new Error("killed");
    });
    await expect(cleanDay(fx.deps({ queue, partitions: changedThenDies }), task)).rejects.toThrow("killed");
    await fx.query(`ALTER TABLE \`${name}\` DROP PARTITION p2024_01`);

    // The twin is refused (2024-01-12 gained a row), its rows go back into p2024_02, which now holds January.
    const report = await cleanDay(fx.deps({ queue }), task);

    expect(report.partition?.reason).toMatch(/2024-01-12 is refused: .*rows added: 1 row more than copied/);
    expect(await createMysqlPartitionedTable(fx.pool).detachedTwins()).toEqual([]);
    const kept = await fx.query<{ id: number }>(
      `SELECT id FROM \`${name}\` WHERE note <> 'late' ORDER BY id`,
    );
    // The task's own day went the chunked path and was cleaned; every other original row is back.
    expect(kept).toEqual(original.slice(4));
    expect(await rowsByDay(name)).toEqual({ "2024-01-11": 4, "2024-01-12": 5 });
    const [{ n } = { n: 0 }] = await fx.query<{ n: number }>(
      `SELECT COUNT(*) AS n FROM \`${name}\` PARTITION (p2024_02)`,
    );
    expect(Number(n)).toBe(9);
  });

  it("a process that dies while putting rows back loses none: the retry puts them back and refuses the day", async () => {
    const name = await table(MONTHLY, [...JANUARY], [...JANUARY]);
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
    const dyingPutBack = detachingWith(
      racing,
      createMysqlPartitionedTable(fx.pool, {
        beforePutBackCommit: () => Promise.reject(new Error("killed")),
      }),
    );
    const queue = createMemoryTaskQueue();
    await startCleanup(fx.deps({ queue }), message(name, false));
    const task = queue.take();
    if (task?.kind !== "clean") throw new Error("expected the partition's task");

    await expect(cleanDay(fx.deps({ queue, partitions: dyingPutBack }), task)).rejects.toThrow("killed");
    // Died after the exchange back, inserting the newcomer: the detached rows are in the table, the newcomer in the twin.
    expect((await createMysqlPartitionedTable(fx.pool).detachedTwins())[0]?.rows).toBe(1);
    expect(await rowsByDay(name)).toEqual({ "2024-01-10": 5, "2024-01-11": 4, "2024-01-12": 4 });

    // The retry finds the twin refused, puts it back, queues the partition's other days and refuses its own day.
    await expect(cleanDay(fx.deps({ queue }), task)).rejects.toThrow(/rows added: 1 row more than copied/);
    expect(await createMysqlPartitionedTable(fx.pool).detachedTwins()).toEqual([]);
    const back = await fx.query<{ id: number }>(
      `SELECT id FROM \`${name}\` WHERE note NOT IN ('before', 'after') ORDER BY id`,
    );
    expect(back).toEqual(original);
    expect(await rowsByDay(name)).toEqual({ "2024-01-10": 5, "2024-01-11": 5, "2024-01-12": 4 });
    expect(queue.tasks().map((queued) => queued.day)).toEqual(["2024-01-10", "2024-01-11", "2024-01-12"]);
  }, 30_000);

  it("reads the partition a day at a time under the throttles: nothing is exchanged while a replica lags", async () => {
    const name = await table(MONTHLY, [...JANUARY], [...JANUARY]);
    const queue = createMemoryTaskQueue();
    await startCleanup(fx.deps({ queue }), message(name, false));
    const task = queue.take();
    if (task?.kind !== "clean") throw new Error("expected the partition's task");
    fx.probe.lags = [{ replica: "replica-1:3306", seconds: 30 }];
    const sleeps: number[] = [];
    const settings = { maxReplicaLagSeconds: 10, replicaUrls: ["mysql://replica-1"], maxWaitMs: 3000 };
    const lagging = fx.deps({ queue, settings, sleep: async (ms) => void sleeps.push(ms) });
    try {
      await expect(cleanDay(lagging, task)).rejects.toThrow(/replica/);
      expect(sleeps.length).toBeGreaterThan(0);
      expect(await rowsByDay(name)).toEqual({ "2024-01-10": 4, "2024-01-11": 4, "2024-01-12": 4 });
      expect(await createMysqlPartitionedTable(fx.pool).detachedTwins()).toEqual([]);
    } finally {
      fx.probe.lags = [];
    }
    // Lag gone: one pause-free read per day, then the exchange.
    const report = await cleanDay(fx.deps({ queue, settings }), task);
    expect(report.partition).toMatchObject({ outcome: "cleaned", days: [...JANUARY] });
  });

  it("a dry run says, per partition, which path it would take and why, and changes nothing", async () => {
    const name = await table(
      MONTHLY,
      [...JANUARY, "2024-02-10", "2024-02-11", "2024-03-05"],
      [...JANUARY, "2024-02-10", "2024-03-05"],
    );
    const before = await rowsByDay(name);

    const summary = await startCleanup(fx.deps(), message(name, true));

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
      statement: expect.stringMatching(/EXCHANGE PARTITION p2024_01 WITH TABLE archiver_twin__/),
    });
    expect(await rowsByDay(name)).toEqual(before);
    expect(await createMysqlPartitionedTable(fx.pool).detachedTwins()).toEqual([]);
  });

  it("a table partitioned by hash is cleaned day by day, and the dry run says why", async () => {
    const name = uniqueName("hashed");
    await fx.query(`CREATE TABLE \`${name}\` (${COLUMNS}) PARTITION BY HASH (id) PARTITIONS 3`);
    for (const day of JANUARY) {
      for (let hour = 1; hour <= 4; hour++)
        await fx.query(`INSERT INTO \`${name}\` (created_at) VALUES (?)`, [`${day} 0${hour}:00:00`]);
    }
    for (const day of JANUARY) await fx.copy(name, day);

    const dry = await startCleanup(fx.deps(), message(name, true));
    expect(dry.partitions).toEqual([
      {
        partition: "*",
        path: "chunked",
        days: [...JANUARY],
        reason: expect.stringMatching(/PARTITION BY HASH .*only RANGE partitions of the filter column/),
      },
    ]);
    const { reports, failures } = await clean(name);
    expect(failures).toEqual([]);
    expect(reports.map((report) => [report.day, report.outcome, report.partition])).toEqual(
      JANUARY.map((day) => [day, "cleaned", undefined]),
    );
    expect(await rowsByDay(name)).toEqual({});
  });

  it("an account without the grants to exchange takes the chunked path, naming the GRANT", async () => {
    const name = await table(MONTHLY, [...JANUARY], [...JANUARY]);
    await fx.account.change([`REVOKE CREATE, DROP, ALTER, INSERT ON \`${fx.db.name}\`.* FROM {account}`]);
    try {
      const { summary, failures } = await clean(name);
      expect(summary.partitions[0]).toMatchObject({
        path: "chunked",
        reason: expect.stringMatching(/GRANT CREATE, DROP, ALTER, INSERT ON/),
      });
      expect(failures).toEqual([]);
      expect(await rowsByDay(name)).toEqual({});
    } finally {
      await fx.account.change(DOCUMENTED_GRANTS.partitions(fx.db.name));
    }
  });
});

describe("reading a partitioned table", () => {
  it("reads a day through its partition alone (EXPLAIN PARTITIONS)", async () => {
    const name = await table(MONTHLY, ["2024-01-10", "2024-02-10"], []);
    const { dayRowsQuery, dayFiguresQuery } = await import("../../adapters/mysql/day-queries");
    const schema = await fx.source.describeTable(name);
    if (!schema) throw new Error("no schema");
    for (const query of [
      dayRowsQuery(schema, "created_at", "2024-02-10"),
      dayFiguresQuery(schema, "created_at", "2024-02-10"),
    ]) {
      const plan = await fx.query<{ partitions: string }>(`EXPLAIN PARTITIONS ${query.sql}`, [
        ...query.values,
      ]);
      expect(plan.map((row) => row.partitions)).toEqual(["p2024_02"]);
    }
  });
});
