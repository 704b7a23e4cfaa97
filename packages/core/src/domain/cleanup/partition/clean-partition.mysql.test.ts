import { describe, expect, it } from "vitest";
import { createMysqlPartitionedTable } from "../../../adapters/mysql/mysql-partitioned-table";
import type { PartitionedTable, PartitionRows } from "../../../ports/partitioned-table";
import type { CleanupFixture } from "../../../testing/cleanup-fixture";
import type { MemoryTaskQueue } from "../../../testing/fakes/memory-task-queue";
import {
  DAILY,
  JANUARY,
  MONTHLY,
  MONTHLY_COLUMNS,
  type PartitionedTables,
  usePartitionTests,
} from "../../../testing/partitioned-tables";
import { cleanPartitionTask } from "./clean-partition-task";

// On real MariaDB, Redis and DuckDB, as the archiver's least-privilege account (see openPartitionTests).
// Partitions emptied at once, or kept for their changed days; which path a partition takes is in
// partition-paths.mysql.test.ts, the faults in clean-partition-faults.mysql.test.ts, how the adapter reads
// a partition in partition-reads.mysql.test.ts.

let fx: CleanupFixture;
let pt: PartitionedTables;

usePartitionTests((opened) => {
  ({ fx, pt } = opened);
});

describe("cleanup of a range-partitioned table", () => {
  it("empties a fully migrated monthly partition at once; a partly migrated one goes day by day", async () => {
    const name = await pt.table(
      MONTHLY,
      [...JANUARY, "2024-02-10", "2024-02-11"],
      [...JANUARY, "2024-02-10"],
    );

    const { summary, reports, failures } = await pt.clean(name);

    expect(summary.partitions).toEqual([
      { partition: "p2024_01", path: "exchange", days: [...JANUARY] },
      { partition: "p2024_02", path: "exchange", days: ["2024-02-10"] },
    ]);
    expect(failures).toEqual([]);
    expect(reports.map((report) => report.partition?.outcome)).toEqual(["cleaned", "chunked"]);
    expect(reports[0]?.partition).toMatchObject({ days: [...JANUARY], rowsDeleted: 12 });
    expect(reports[1]?.partition?.reason).toMatch(/rows of 2024-02-11, which is not a migrated day/);
    expect(reports[1]).toMatchObject({ day: "2024-02-10", outcome: "cleaned", rowsDeleted: 4 });
    expect(await pt.rowsByDay(name)).toEqual({ "2024-02-11": 4 });
    expect(await fx.deps().state.cleanedDays(name)).toEqual([...JANUARY, "2024-02-10"]);
    expect(await pt.twins()).toEqual([]);
    // The partition itself stays, empty, for the operator's own partition rotation.
    const [{ n } = { n: 0 }] = await fx.query<{ n: number }>(
      "SELECT COUNT(*) AS n FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?",
      [name],
    );
    expect(Number(n)).toBe(3);
  });

  it("hashes each row once, in the twin, when the partition was last written before its days were copied", async () => {
    const name = await pt.table(MONTHLY, [...JANUARY], [...JANUARY]);
    const { hashed, reads, counting } = hashesListed();

    const { reports, failures } = await pt.clean(name, (queue) => fx.deps({ queue, partitions: counting }));

    expect(failures).toEqual([]);
    expect(reports[0]?.partition).toMatchObject({ outcome: "cleaned", days: [...JANUARY], rowsDeleted: 12 });
    // Its few rows in one pass over the twin, which reaches every row: the twin is not counted first,
    // nor its rows after.
    expect(hashed).toEqual(["twin all"]);
    expect(reads).toEqual(["twin's rows", "count partition", "hash twin all"]);
  });

  it("hashes a twin larger than one read a day at a time, each row once", async () => {
    const name = await pt.table(MONTHLY, [...JANUARY], [...JANUARY]);
    const { hashed, reads, counting } = hashesListed();
    // Chunks of one row: a read hashes ten rows at most, fewer than January's twelve.
    const deps = (queue: MemoryTaskQueue) =>
      fx.deps({ queue, partitions: counting, settings: { chunkRows: 1 } });

    const { reports, failures } = await pt.clean(name, deps);

    expect(failures).toEqual([]);
    expect(reports[0]?.partition).toMatchObject({ outcome: "cleaned", days: [...JANUARY], rowsDeleted: 12 });
    expect(hashed).toEqual(JANUARY.map((day) => `twin ${day}`));
    // Counted first, so that every counted row is a hashed one, and all its rows counted after.
    expect(reads).toEqual([
      "twin's rows",
      "count partition",
      "count twin",
      ...JANUARY.map((day) => `hash twin ${day}`),
      "twin's rows",
    ]);
  });

  it("empties daily RANGE COLUMNS partitions one task each", async () => {
    const name = await pt.table(DAILY, [...JANUARY, "2024-01-13"], [...JANUARY]);

    const { summary, reports, failures } = await pt.clean(name);

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
    expect(await pt.rowsByDay(name)).toEqual({ "2024-01-13": 4 });
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
    const name = await pt.table(partitioning, [...days, "2024-01-02"], days);

    const { summary, reports, failures } = await pt.clean(name);

    expect(summary.partitions).toEqual([{ partition, path: "exchange", days }]);
    expect(failures).toEqual([]);
    expect(reports[0]?.partition).toMatchObject({ outcome: "cleaned", days, rowsDeleted: 8 });
    expect(await pt.rowsByDay(name)).toEqual({ "2024-01-02": 4 });
  });

  it("keeps a row updated after its copy in place: its day is refused, the partition's other days go day by day", async () => {
    const name = await pt.table(MONTHLY_COLUMNS, [...JANUARY], [...JANUARY]);
    const layout = await createMysqlPartitionedTable(fx.pool).partitioning(name);
    expect(layout).toMatchObject({ kind: "range", column: "created_at" });
    await fx.query(`UPDATE \`${name}\` SET note = 'changed' WHERE created_at = '2024-01-11 02:00:00'`);
    let detached = 0;
    const watched = pt.detachingWith(async (detach) => {
      detached += 1;
      await detach();
    });

    const { summary, reports, failures } = await pt.clean(name, (queue) =>
      fx.deps({ queue, partitions: watched }),
    );

    // Written since its copy, the partition was fingerprinted in place: its rows never left the table.
    expect(detached).toBe(0);

    expect(summary.partitions.map((p) => [p.partition, p.path])).toEqual([["m2024_01", "exchange"]]);
    expect(reports[0]?.partition).toMatchObject({ outcome: "chunked" });
    expect(reports[0]?.partition?.reason).toMatch(/2024-01-11 is refused: .*source changed since the copy/);
    expect(failures.map(({ task, error }) => [task.day, error.message])).toEqual([
      ["2024-01-11", expect.stringMatching(/source changed since the copy/)],
    ]);
    expect(await pt.rowsByDay(name)).toEqual({ "2024-01-11": 4 });
    const [{ note } = { note: "" }] = await fx.query<{ note: string }>(
      `SELECT note FROM \`${name}\` WHERE created_at = '2024-01-11 02:00:00'`,
    );
    expect(note).toBe("changed");
    expect(await fx.deps().state.cleanedDays(name)).toEqual(["2024-01-10", "2024-01-12"]);
  });

  it("puts the twin back when a day's count through the index and its hashed rows disagree", async () => {
    const name = await pt.table(MONTHLY, [...JANUARY], [...JANUARY]);
    const adapter = createMysqlPartitionedTable(fx.pool);
    // A count that puts a row on 2024-01-11 which that day's hashed range does not hold.
    const miscounting: PartitionedTable = {
      ...adapter,
      dayCounts: async (table, column, rows) => {
        const counts = await adapter.dayCounts(table, column, rows);
        if (!("twinOf" in rows)) return counts;
        const days = new Map(counts.days);
        days.set("2024-01-11", (days.get("2024-01-11") ?? 0) + 1);
        return { ...counts, days };
      },
    };

    // Read a day at a time (chunks of one row): a twin read in one pass is not counted.
    const { reports, failures } = await pt.clean(name, (queue) =>
      fx.deps({ queue, partitions: miscounting, settings: { chunkRows: 1 } }),
    );

    expect(failures).toEqual([]);
    expect(reports[0]?.partition).toMatchObject({ outcome: "chunked" });
    expect(reports[0]?.partition?.reason).toMatch(
      /after detaching: 2024-01-11 is refused: 5 rows counted on it through the index, 4 hashed/,
    );
    expect(await pt.twins()).toEqual([]);
    // Put back, then cleaned day by day, each row checked under its chunk's lock.
    expect(await fx.deps().state.cleanedDays(name)).toEqual([...JANUARY]);
    expect(reports.filter((report) => report.outcome === "cleaned").map((report) => report.day)).toEqual([
      ...JANUARY,
    ]);
  });

  it("puts the twin back when its hashed rows hold a day its count did not: no unproven row leaves", async () => {
    const name = await pt.table(MONTHLY, [...JANUARY], [...JANUARY]);
    // A row of 2024-01-20, which is not migrated, written into the twin after it was counted.
    const lateWrite = writingIntoTwin(name, "2024-01-20 10:00:00");

    const { reports, failures } = await pt.clean(name, (queue) => fx.deps({ queue, partitions: lateWrite }));

    expect(failures).toEqual([]);
    expect(reports[0]?.partition).toMatchObject({ outcome: "chunked" });
    expect(reports[0]?.partition?.reason).toMatch(
      /after detaching: it holds rows of 2024-01-20, which is not a migrated day waiting for cleanup/,
    );
    expect(await pt.twins()).toEqual([]);
    expect(await pt.rowsByDay(name)).toEqual({ "2024-01-20": 1 });
    expect(await fx.deps().state.cleanedDays(name)).toEqual([...JANUARY]);
  });

  it("puts the twin back when it holds a row that none of its reads reached: only hashed rows leave", async () => {
    const name = await pt.table(MONTHLY, [...JANUARY], [...JANUARY]);
    // Read a day at a time (chunks of one row); a row of 2024-01-25, a day no read reaches, written into the
    // twin once it was counted.
    const lateWrite = writingIntoTwin(name, "2024-01-25 10:00:00");

    const { reports, failures } = await pt.clean(name, (queue) =>
      fx.deps({ queue, partitions: lateWrite, settings: { chunkRows: 1 } }),
    );

    expect(failures).toEqual([]);
    expect(reports[0]?.partition).toMatchObject({ outcome: "chunked" });
    expect(reports[0]?.partition?.reason).toMatch(
      /after detaching: the twin holds 13 rows, 12 of them on verified days/,
    );
    expect(await pt.twins()).toEqual([]);
    expect(await pt.rowsByDay(name)).toEqual({ "2024-01-25": 1 });
    expect(await fx.deps().state.cleanedDays(name)).toEqual([...JANUARY]);
  });

  it("keeps in place a partition with a day copied before fingerprints: nothing is exchanged, the day is refused", async () => {
    const name = await pt.table(MONTHLY, [...JANUARY], [...JANUARY]);
    const record = await fx.ledger.copiedDay(name, "2024-01-11");
    if (!record) throw new Error("no record");
    const { fingerprint: _, ...figures } = record.figures;
    await fx.ledger.recordCopiedDay(name, { ...record, figures });
    let detached = 0;
    const watched = pt.detachingWith(async (detach) => {
      detached += 1;
      await detach();
    });

    const { reports, failures } = await pt.clean(name, (queue) => fx.deps({ queue, partitions: watched }));

    expect(detached).toBe(0);
    expect(reports[0]?.partition?.reason).toMatch(
      /^2024-01-11 is refused: .*copied before content fingerprints/,
    );
    expect(failures.map(({ task, error }) => [task.day, error.message])).toEqual([
      ["2024-01-11", expect.stringMatching(/copied before content fingerprints were recorded/)],
    ]);
    expect(await pt.rowsByDay(name)).toEqual({ "2024-01-11": 4 });
    expect(await pt.twins()).toEqual([]);
  });

  it("a task naming a partition the table does not have changes nothing", async () => {
    const name = await pt.table(MONTHLY, [...JANUARY], [...JANUARY]);
    const task = {
      kind: "clean",
      table: name,
      filterColumn: "created_at",
      day: JANUARY[0],
      partition: "p1999",
    } as const;

    const report = await cleanPartitionTask(fx.deps(), task);

    expect(report.partition).toMatchObject({ outcome: "already-done", days: [], rowsDeleted: 0 });
    expect(await pt.rowsByDay(name)).toEqual({ "2024-01-10": 4, "2024-01-11": 4, "2024-01-12": 4 });
    expect(await pt.twins()).toEqual([]);
    expect(await fx.deps().state.cleanedDays(name)).toEqual([]);
  });
});

/**
 * The MySQL partition adapter, listing each hashed read ("twin 2024-01-10..2024-01-11", "partition all"), for
 * a partition the server last wrote to an hour ago, before its copies.
 */
function hashesListed(): { hashed: string[]; reads: string[]; counting: PartitionedTable } {
  const adapter = createMysqlPartitionedTable(fx.pool);
  const hashed: string[] = [];
  const reads: string[] = [];
  const where = (rows: PartitionRows) => ("twinOf" in rows ? "twin" : "partition");
  const counting: PartitionedTable = {
    ...adapter,
    secondsSinceWrite: async () => 3600,
    twinRows: (table, partition) => {
      reads.push("twin's rows");
      return adapter.twinRows(table, partition);
    },
    dayCounts: (table, column, rows) => {
      reads.push(`count ${where(rows)}`);
      return adapter.dayCounts(table, column, rows);
    },
    dayFigures: (schema, column, rows, day) => {
      hashed.push(`${where(rows)} ${day ?? "all"}`);
      reads.push(`hash ${where(rows)} ${day ?? "all"}`);
      return adapter.dayFigures(schema, column, rows, day);
    },
  };
  return { hashed, reads, counting };
}

/** The MySQL partition adapter, which writes a row at `createdAt` into `table`'s twin just before the twin's first hashed read. */
function writingIntoTwin(table: string, createdAt: string): PartitionedTable {
  const adapter = createMysqlPartitionedTable(fx.pool);
  let written = false;
  return {
    ...adapter,
    dayFigures: async (schema, column, rows, day) => {
      if ("twinOf" in rows && !written) {
        written = true;
        await fx.query(
          `INSERT INTO \`${adapter.twinName(table, rows.twinOf)}\` (id, created_at, note) VALUES (900, ?, 'late')`,
          [createdAt],
        );
      }
      return adapter.dayFigures(schema, column, rows, day);
    },
  };
}
