import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RefusalError } from "../../errors";
import type { Warehouse } from "../../ports/warehouse";
import { db, deps, fixture, readBack, t, task } from "../../testing/copy-day-fixture";
import { testRedisUrl, uniqueName } from "../../testing/test-services";
import { copyDay } from "./copy-day";

// Every MySQL type round-tripped: copy-day-types.mysql.test.ts.

beforeAll(fixture.createDatabase);
afterAll(fixture.dropDatabase);
beforeEach(fixture.startRuntime); // and closes it after each test

describe("copyDay", () => {
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
    expect(await t.runtime.storeLedger.migratedDays(table)).toEqual(["2024-01-02"]);
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
      replaceDay: (at, schema, source, ...rest) =>
        real.replaceDay(
          at,
          schema,
          {
            async *[Symbol.asyncIterator]() {
              for await (const batch of source) {
                if (++batches === 4) throw new Error("process killed");
                yield batch;
              }
            },
          },
          ...rest,
        ),
    };
    await expect(
      copyDay(deps({ warehouse: async () => crashing }), task(table, "2024-01-06")),
    ).rejects.toThrow("killed");
    expect(await t.runtime.storeLedger.migratedDays(table)).toEqual([]);
    expect(await real.countRows({ dataset: "archive", table: `${table}_archive` })).toBe(0);

    await copyDay(deps(), task(table, "2024-01-06"));
    expect(await real.countRows({ dataset: "archive", table: `${table}_archive` })).toBe(1000);
    expect(await t.runtime.storeLedger.migratedDays(table)).toEqual(["2024-01-06"]);
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
      replaceDay: (at, schema, source, ...rest) =>
        real.replaceDay(
          at,
          schema,
          {
            async *[Symbol.asyncIterator]() {
              for await (const batch of source) yield batch.slice(1);
            },
          },
          ...rest,
        ),
    };
    await expect(
      copyDay(deps({ warehouse: async () => lossy }), task(table, "2024-01-07")),
    ).rejects.toBeInstanceOf(RefusalError);
    expect(await t.runtime.storeLedger.migratedDays(table)).toEqual([]);
    expect(await t.runtime.storeLedger.copiedDay(table, "2024-01-07")).toBeUndefined();
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
