import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { DuckDbWarehouse } from "../../adapters/duckdb/duckdb-warehouse";
import { VerificationError } from "../../errors";
import type { Warehouse } from "../../ports/warehouse";
import { createTestRuntime, type TestRuntime } from "../../testing/test-runtime";
import { createTestDatabase, type TestDatabase, testRedisUrl, uniqueName } from "../../testing/test-services";
import type { CopyDayTask } from "../tasks/task-payload";
import type { Row, TableSchema } from "../types/table-schema";
import { type CopyDayDeps, copyDay } from "./copy-day";

const NOW = "2026-11-21T12:00:00Z";
let db: TestDatabase;
let t: TestRuntime;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.connection.query("SET SESSION sql_mode = ''");
});
afterAll(async () => {
  await db.drop();
});
beforeEach(async () => {
  t = await createTestRuntime({ mysqlUrl: db.url, now: NOW });
});
afterEach(async () => {
  await t.close();
});

/** The runtime's copy wiring (its zone is UTC), in batches of 100 rows. */
function deps(overrides: Partial<CopyDayDeps> = {}): CopyDayDeps {
  return { ...t.runtime.copy, batchRows: 100, ...overrides };
}

const task = (table: string, day: string): CopyDayTask => ({
  kind: "copy",
  table,
  destination: `${table}_archive`,
  filterColumn: "created_at",
  day,
});

async function readBack(table: string, day: string): Promise<{ schema: TableSchema; rows: Row[] }> {
  const schema = (await t.runtime.source.describeTable(table)) as TableSchema;
  const warehouse = (await t.runtime.warehouse()) as DuckDbWarehouse;
  const rows = await warehouse.readDay(
    { destination: { dataset: "archive", table: `${table}_archive` }, filterColumn: "created_at", day },
    schema,
  );
  return { schema, rows };
}

describe("copyDay", () => {
  it("round-trips every type of invariant 7 exactly", async () => {
    const table = uniqueName("types");
    await db.connection.query(`CREATE TABLE ${table} (
      id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
      created_at DATETIME(6) NOT NULL,
      d_small DECIMAL(10,2), d_big DECIMAL(65,30), u64 BIGINT UNSIGNED, i64 BIGINT,
      dt6 DATETIME(6), d DATE, j JSON, vb VARBINARY(16), bl BLOB, tm TIME(6), b1 BIT(1), b64 BIT(64),
      e ENUM('small','large'), s SET('a','b','c'), y YEAR, txt VARCHAR(100) CHARACTER SET utf8mb4, f FLOAT, dbl DOUBLE,
      KEY (created_at))`);
    await db.connection.query(
      `INSERT INTO ${table} VALUES
       (1, '2024-03-10 00:00:00.000000', 12345678.90, '12345678901234567890123456789012345.123456789012345678901234567890',
        18446744073709551615, -9223372036854775808, '2024-03-10 23:59:59.999999', '2024-02-29', '{"a": [1, 2.5, "x"], "b": null}',
        0x00FF10, 0x000102FEFF, '-838:59:59.000000', b'1', b'1111111111111111111111111111111111111111111111111111111111111111',
        'large', 'a,c', 2155, 'naïve café 🎉 日本', 3.25, 0.1),
       (2, '2024-03-10 23:59:59.999999', -0.01, '-0.000000000000000000000000000001', 0, 9223372036854775807,
        '0000-00-00 00:00:00', '0000-00-00', '[]', '', '', '838:59:59.000000', b'0', b'0', 'small', '', 1901, '', -1.5, 1e308),
       (3, '2024-03-10 12:00:00.000001', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
       (4, '2024-03-09 23:59:59.999999', 1, 1, 1, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'prev day', NULL, NULL),
       (5, '2024-03-11 00:00:00.000000', 1, 1, 1, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'next day', NULL, NULL)`,
    );
    const record = await copyDay(deps(), task(table, "2024-03-10"));
    expect(record.figures).toMatchObject({ rows: 3, key: { count: 3, sum: "6", min: "1", max: "3" } });
    expect(record.zeroDates).toBe(2);

    const { rows } = await readBack(table, "2024-03-10");
    expect(rows).toEqual([
      [
        "1",
        "2024-03-10 00:00:00.000000",
        "12345678.90",
        "12345678901234567890123456789012345.123456789012345678901234567890",
        "18446744073709551615",
        "-9223372036854775808",
        "2024-03-10 23:59:59.999999",
        "2024-02-29",
        expect.stringMatching(/^\{"a": ?\[1, ?2\.5, ?"x"\], ?"b": ?null\}$/),
        Uint8Array.from([0x00, 0xff, 0x10]),
        Uint8Array.from([0x00, 0x01, 0x02, 0xfe, 0xff]),
        "-838:59:59.000000",
        "1",
        "18446744073709551615",
        "large",
        "a,c",
        2155,
        "naïve café 🎉 日本",
        3.25,
        0.1,
      ],
      [
        "2",
        "2024-03-10 23:59:59.999999",
        "-0.01",
        "-0.000000000000000000000000000001",
        "0",
        "9223372036854775807",
        null,
        null,
        "[]",
        new Uint8Array(0),
        new Uint8Array(0),
        "838:59:59.000000",
        "0",
        "0",
        "small",
        "",
        1901,
        "",
        -1.5,
        1e308,
      ],
      ["3", "2024-03-10 12:00:00.000001", ...Array(18).fill(null)],
    ]);
  });

  it("puts rows at 00:00:00 and 23:59:59.999999 in their own day", async () => {
    const table = await simpleTable([
      "2024-01-01 23:59:59.999999",
      "2024-01-02 00:00:00",
      "2024-01-02 23:59:59.999999",
      "2024-01-03 00:00:00",
    ]);
    await copyDay(deps(), task(table, "2024-01-02"));
    const { rows } = await readBack(table, "2024-01-02");
    expect(rows.map((r) => r[1])).toEqual(["2024-01-02 00:00:00.000000", "2024-01-02 23:59:59.999999"]);
    expect(await t.runtime.ledger.migratedDays(table)).toEqual(["2024-01-02"]);
  });

  it("copying a day twice leaves exactly one copy of each row", async () => {
    const table = await simpleTable(
      Array.from({ length: 250 }, (_, i) => `2024-01-05 ${pad(i % 24)}:${pad(i % 60)}:00`),
    );
    await copyDay(deps(), task(table, "2024-01-05"));
    // The second copy runs as if the first had crashed after writing the warehouse but before recording.
    await forgetDay(table, "2024-01-05");
    await copyDay(deps(), task(table, "2024-01-05"));
    const warehouse = await t.runtime.warehouse();
    expect(await warehouse.countRows({ dataset: "archive", table: `${table}_archive` })).toBe(250);
  });

  it("a column added between two copies is copied by the second (the schema is never stale)", async () => {
    const table = await simpleTable(["2024-01-06 08:00:00", "2024-01-07 09:00:00"]);
    await copyDay(deps(), task(table, "2024-01-06"));
    await db.connection.query(`ALTER TABLE ${table} ADD COLUMN note VARCHAR(20) NULL`);
    await db.connection.query(`UPDATE ${table} SET note = 'added later' WHERE created_at >= '2024-01-07'`);
    await copyDay(deps(), task(table, "2024-01-07"));
    const { schema, rows } = await readBack(table, "2024-01-07");
    expect(schema.columns.map((c) => c.name)).toEqual(["id", "created_at", "note"]);
    expect(rows).toEqual([[2, "2024-01-07 09:00:00.000000", "added later"]]);
  });

  it("a duplicate task for a migrated day whose source rows are gone changes nothing", async () => {
    const table = await simpleTable(["2024-01-08 08:00:00", "2024-01-08 09:00:00", "2024-01-08 10:00:00"]);
    const first = await copyDay(deps(), task(table, "2024-01-08"));
    await db.connection.query(`DELETE FROM ${table} WHERE id <= 2`);
    const again = await copyDay(deps(), task(table, "2024-01-08"));
    expect(again).toEqual(first);
    const warehouse = await t.runtime.warehouse();
    expect(await warehouse.countRows({ dataset: "archive", table: `${table}_archive` })).toBe(3);
  });

  it("a copy killed half way records nothing, and the retry leaves exact counts", async () => {
    const table = await simpleTable(
      Array.from({ length: 1000 }, (_, i) => `2024-01-06 ${pad(i % 24)}:00:${pad(i % 60)}`),
    );
    const real = await t.runtime.warehouse();
    let batches = 0;
    const crashing: Warehouse = {
      ...real,
      ensureTable: real.ensureTable.bind(real),
      dayFigures: real.dayFigures.bind(real),
      countRows: real.countRows.bind(real),
      close: real.close.bind(real),
      replaceDay: (at, schema, source) =>
        real.replaceDay(at, schema, {
          async *[Symbol.asyncIterator]() {
            for await (const batch of source) {
              if (++batches === 4) throw new Error("process killed");
              yield batch;
            }
          },
        }),
    };
    await expect(
      copyDay(deps({ warehouse: async () => crashing }), task(table, "2024-01-06")),
    ).rejects.toThrow("killed");
    expect(await t.runtime.ledger.migratedDays(table)).toEqual([]);
    expect(await real.countRows({ dataset: "archive", table: `${table}_archive` })).toBe(0);

    await copyDay(deps(), task(table, "2024-01-06"));
    expect(await real.countRows({ dataset: "archive", table: `${table}_archive` })).toBe(1000);
    expect(await t.runtime.ledger.migratedDays(table)).toEqual(["2024-01-06"]);
  });

  it("never records a day whose warehouse count differs from the rows read", async () => {
    const table = await simpleTable(["2024-01-07 10:00:00", "2024-01-07 11:00:00"]);
    const real = await t.runtime.warehouse();
    const lossy: Warehouse = {
      ...real,
      ensureTable: real.ensureTable.bind(real),
      countRows: real.countRows.bind(real),
      close: real.close.bind(real),
      dayFigures: real.dayFigures.bind(real),
      replaceDay: (at, schema, source) =>
        real.replaceDay(at, schema, {
          async *[Symbol.asyncIterator]() {
            for await (const batch of source) yield batch.slice(1);
          },
        }),
    };
    await expect(
      copyDay(deps({ warehouse: async () => lossy }), task(table, "2024-01-07")),
    ).rejects.toBeInstanceOf(VerificationError);
    expect(await t.runtime.ledger.migratedDays(table)).toEqual([]);
    expect(await t.runtime.ledger.copiedDay(table, "2024-01-07")).toBeUndefined();
  });
});

/** Removes the day from mig_<table> and its record, as if the copy had crashed just before recording. */
async function forgetDay(table: string, day: string): Promise<void> {
  const { Redis } = await import("ioredis");
  const redis = new Redis(testRedisUrl);
  await redis.srem(`mig_${table}`, day);
  await redis.hdel(`archiver:copied:${table}`, day);
  redis.disconnect();
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

async function simpleTable(times: readonly string[]): Promise<string> {
  const table = uniqueName("events");
  await db.connection.query(
    `CREATE TABLE ${table} (id INT AUTO_INCREMENT PRIMARY KEY, created_at DATETIME(6) NOT NULL, KEY (created_at))`,
  );
  await db.connection.query(`INSERT INTO ${table} (created_at) VALUES ?`, [times.map((time) => [time])]);
  return table;
}
