import { describe, expect, it } from "vitest";
import { createMysqlPartitionedTable } from "../../../adapters/mysql/mysql-partitioned-table";
import type { CleanupFixture } from "../../../testing/cleanup-fixture";
import { MONTHLY, type PartitionedTables, usePartitionTests } from "../../../testing/partitioned-tables";
import { uniqueName } from "../../../testing/test-services";

// How the MySQL partition adapter reads a partition's rows by day, on real MariaDB, as the archiver's
// least-privilege account (see openPartitionTests): its write times, counts, figures and pruning.

let fx: CleanupFixture;
let pt: PartitionedTables;

usePartitionTests((opened) => {
  ({ fx, pt } = opened);
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
    const partitions = createMysqlPartitionedTable(pt.spyingPool(statements));

    for (const day of ["2024-01-10", "2024-01-11"] as const) {
      const read = await partitions.dayFigures(schema, "created_at", { partition: "p2024_01" }, day);
      expect(read.days.get(day)).toEqual(await fx.source.dayFigures(schema, "created_at", day));
    }
    const hashing = statements.filter((sql) => sql.includes("SUM("));
    expect(hashing).toHaveLength(2);
    expect(hashing[0]).toContain("FORCE INDEX (PRIMARY)");
    expect(hashing[1]).not.toContain("FORCE INDEX");
  });

  it("hashes all of the rows in one pass, grouped by day, without a range", async () => {
    const name = await pt.table(MONTHLY, ["2024-01-10", "2024-01-11", "2024-01-12"], []);
    const schema = await fx.source.describeTable(name);
    if (!schema) throw new Error("no schema");
    const statements: string[] = [];
    const partitions = createMysqlPartitionedTable(pt.spyingPool(statements));
    const rows = { partition: "p2024_01" };
    const source = async (day: string) => fx.source.dayFigures(schema, "created_at", day);

    const all = await partitions.dayFigures(schema, "created_at", rows);
    expect(all).toEqual({
      days: new Map([
        ["2024-01-10", await source("2024-01-10")],
        ["2024-01-11", await source("2024-01-11")],
        ["2024-01-12", await source("2024-01-12")],
      ]),
      outside: 0,
    });

    const hashing = statements.filter((sql) => sql.includes("SUM("));
    expect(hashing).toHaveLength(1);
    expect(hashing[0]).toContain("GROUP BY TO_DAYS");
    expect(hashing[0]).not.toContain("WHERE");
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
    const partitions = createMysqlPartitionedTable(pt.spyingPool(statements));

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
    const { dayRowsQuery, dayFiguresQuery } = await import("../../../adapters/mysql/day-queries");
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
