import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMysqlPartitionedTable } from "../../adapters/mysql/mysql-partitioned-table";
import type { PartitionedTable } from "../../ports/partitioned-table";
import type { CleanupFixture } from "../../testing/cleanup-fixture";
import {
  DAILY,
  JANUARY,
  MONTHLY,
  MONTHLY_COLUMNS,
  openPartitionTests,
  type PartitionedTables,
} from "../../testing/partitioned-tables";
import { uniqueName } from "../../testing/test-services";
import { cleanDay } from "./clean-day";

// On real MariaDB, Redis and DuckDB, as the archiver's least-privilege account (see openPartitionTests).
// Partitions emptied at once, or kept for their changed days; which path a partition takes is in
// partition-paths.mysql.test.ts, the faults in clean-partition-faults.mysql.test.ts.

let fx: CleanupFixture;
let pt: PartitionedTables;

beforeAll(async () => {
  ({ fx, pt } = await openPartitionTests());
});

afterAll(async () => {
  await fx?.close();
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
    const adapter = createMysqlPartitionedTable(fx.pool);
    const hashed: string[] = [];
    const counting: PartitionedTable = {
      ...adapter,
      // The server last wrote to it an hour ago, before the copies.
      secondsSinceWrite: async () => 3600,
      dayFigures: (schema, column, rows, day) => {
        hashed.push(`${"twinOf" in rows ? "twin" : "partition"} ${day ?? "all"}`);
        return adapter.dayFigures(schema, column, rows, day);
      },
    };

    const { reports, failures } = await pt.clean(name, (queue) => fx.deps({ queue, partitions: counting }));

    expect(failures).toEqual([]);
    expect(reports[0]?.partition).toMatchObject({ outcome: "cleaned", days: [...JANUARY], rowsDeleted: 12 });
    expect(hashed).toEqual(JANUARY.map((day) => `twin ${day}`));
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

    const { reports, failures } = await pt.clean(name, (queue) =>
      fx.deps({ queue, partitions: miscounting }),
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

    const report = await cleanDay(fx.deps(), task);

    expect(report.partition).toMatchObject({ outcome: "already-done", days: [], rowsDeleted: 0 });
    expect(await pt.rowsByDay(name)).toEqual({ "2024-01-10": 4, "2024-01-11": 4, "2024-01-12": 4 });
    expect(await pt.twins()).toEqual([]);
    expect(await fx.deps().state.cleanedDays(name)).toEqual([]);
  });
});

describe("reading a partitioned table", () => {
  it("tells how long ago the server last wrote to a partition", async () => {
    const name = await pt.table(MONTHLY, ["2024-01-10", "2024-02-10"], []);
    const partitions = createMysqlPartitionedTable(fx.pool);
    const since = await partitions.secondsSinceWrite(name, "p2024_01");
    expect(since).toBeGreaterThanOrEqual(0);
    expect(since).toBeLessThan(60);
    expect(await partitions.secondsSinceWrite(name, "p1999")).toBeUndefined();
  });

  it("counts a partition's rows by day; NULL, zero and partial zero dates lie on no day", async () => {
    const name = uniqueName("counted");
    await fx.query(
      `CREATE TABLE \`${name}\` (id BIGINT NOT NULL, created_at DATETIME(6) NULL, KEY (created_at)) ${MONTHLY}`,
    );
    const values = [
      "2024-01-10 00:00:00",
      "2024-01-10 23:59:59.999999",
      "2024-01-11 12:00:00",
      "2024-01-31 23:59:59.999999",
      "2024-02-01 00:00:00",
      null,
      "0000-00-00 00:00:00",
      "2024-01-00 00:00:00",
      "2024-00-00 00:00:00",
    ];
    for (const [id, value] of values.entries()) {
      await fx.query(
        `SET STATEMENT sql_mode = '' FOR INSERT INTO \`${name}\` (id, created_at) VALUES (?, ?)`,
        [id, value],
      );
    }
    const partitions = createMysqlPartitionedTable(fx.pool);

    const january = await partitions.dayCounts(name, "created_at", { partition: "p2024_01" });
    const february = await partitions.dayCounts(name, "created_at", { partition: "p2024_02" });

    expect(Object.fromEntries(january.days)).toEqual({ "2024-01-10": 2, "2024-01-11": 1, "2024-01-31": 1 });
    expect(january.outside).toBe(4);
    expect(Object.fromEntries(february.days)).toEqual({ "2024-02-01": 1 });
    expect(february.outside).toBe(0);
    await fx.query(`DROP TABLE \`${name}\``);
  });

  it("hashes a day along the primary key when its key range holds few other rows, else through the index", async () => {
    const name = await pt.table(MONTHLY, ["2024-01-10"], []);
    // 2024-01-11: two rows whose key range (10..100,000) also holds 2024-01-12's hundred rows.
    for (const id of [10, 100_000]) {
      await fx.query(
        `INSERT INTO \`${name}\` (id, created_at, note) VALUES (?, '2024-01-11 10:00:00', 'wide')`,
        [id],
      );
    }
    for (let id = 11; id <= 110; id++) {
      await fx.query(
        `INSERT INTO \`${name}\` (id, created_at, note) VALUES (?, '2024-01-12 10:00:00', 'inside')`,
        [id],
      );
    }
    const schema = await fx.source.describeTable(name);
    if (!schema) throw new Error("no schema");
    const statements: string[] = [];
    const partitions = createMysqlPartitionedTable(spyingPool(statements));

    for (const day of ["2024-01-10", "2024-01-11"] as const) {
      const read = await partitions.dayFigures(schema, "created_at", { partition: "p2024_01" }, day);
      expect(read.days.get(day)).toEqual(await fx.source.dayFigures(schema, "created_at", day));
    }
    const hashing = statements.filter((sql) => sql.includes("SUM("));
    expect(hashing).toHaveLength(2);
    expect(hashing[0]).toContain("FORCE INDEX (PRIMARY)");
    expect(hashing[1]).not.toContain("FORCE INDEX");
  });

  it("hashes through the index a day whose key leads with a column of few values (a tenant's)", async () => {
    const name = uniqueName("tenants");
    await fx.query(
      `CREATE TABLE \`${name}\` (tenant INT NOT NULL, id BIGINT NOT NULL, created_at DATETIME(6) NOT NULL,
         note VARCHAR(40) NULL, PRIMARY KEY (tenant, id, created_at), KEY (created_at)) ${MONTHLY}`,
    );
    for (let id = 1; id <= 44; id++) {
      const at = id <= 4 ? `2024-01-10 0${id}:00:00` : "2024-01-11 10:00:00";
      await fx.query(`INSERT INTO \`${name}\` VALUES (1, ?, ?, 'tenant 1')`, [id, at]);
    }
    const schema = await fx.source.describeTable(name);
    if (!schema) throw new Error("no schema");
    const statements: string[] = [];
    const partitions = createMysqlPartitionedTable(spyingPool(statements));

    const read = await partitions.dayFigures(schema, "created_at", { partition: "p2024_01" }, "2024-01-10");

    expect(read.days.get("2024-01-10")).toEqual(
      await fx.source.dayFigures(schema, "created_at", "2024-01-10"),
    );
    const hashing = statements.filter((sql) => sql.includes("SUM("));
    expect(hashing).toHaveLength(1);
    expect(hashing[0]).not.toContain("FORCE INDEX");
    await fx.query(`DROP TABLE \`${name}\``);
  });

  it("reads a day through its partition alone (EXPLAIN PARTITIONS)", async () => {
    const name = await pt.table(MONTHLY, ["2024-01-10", "2024-02-10"], []);
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

/** The fixture's pool, with the text of every statement it is asked to run added to `statements`. */
function spyingPool(statements: string[]): typeof fx.pool {
  return new Proxy(fx.pool, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (property !== "query") return typeof value === "function" ? value.bind(target) : value;
      return (options: { sql: string }, values: unknown[]) => {
        statements.push(options.sql);
        return target.query(options, values);
      };
    },
  });
}
