import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RefusalError } from "../../errors";
import type { Row } from "../../model/table-schema";
import { batchesOf, dayOf } from "../../testing/orders-fixture";
import { uniqueName } from "../../testing/test-services";
import { describeWarehouseContract } from "../../testing/warehouse-contract";
import { keyedRows, keyedSchema } from "../../testing/warehouse-contract-fixtures";
import { createDuckDbWarehouse, type DuckDbWarehouse } from "./duckdb-warehouse";
import { readDuckDbDay } from "./testing/read-day";

// The warehouse contract and DuckDB's own behaviour, in memory; warehouse files:
// duckdb-warehouse-files.test.ts and duckdb-warehouse-column-types.test.ts.

const DAY = "2024-05-06";

describeWarehouseContract("DuckDB", async () => {
  const warehouse = await createDuckDbWarehouse({ path: ":memory:", dataset: "archive" });
  return {
    warehouse,
    readDay: (at, schema) => readDuckDbDay(warehouse, at, schema),
    cleanup: () => warehouse.close(),
  };
});

describe("DuckDB warehouse specifics", () => {
  let warehouse: DuckDbWarehouse;
  const schema = keyedSchema();
  const fresh = async () => {
    const destination = { dataset: "archive", table: uniqueName("t") };
    await warehouse.ensureTable(destination, schema, "created_at");
    return destination;
  };
  beforeAll(async () => {
    warehouse = await createDuckDbWarehouse({ path: ":memory:", dataset: "archive" });
  });
  afterAll(async () => {
    await warehouse.close();
  });

  it("names the column, the old and the new type on an incompatible change", async () => {
    const destination = await fresh();
    await expect(
      warehouse.ensureTable(destination, keyedSchema({ noteKind: "datetime" }), "created_at"),
    ).rejects.toThrow("column note is VARCHAR in the warehouse but the source now needs TIMESTAMP");
  });

  it("keeps rows written inside the transaction invisible to readers until it commits", async () => {
    const destination = await fresh();
    await warehouse.replaceDay(dayOf(destination, DAY), schema, batchesOf(keyedRows(DAY, [1, 2])));
    const seenMidway: number[] = [];
    async function* observed(): AsyncGenerator<readonly Row[]> {
      yield keyedRows(
        DAY,
        Array.from({ length: 5000 }, (_, i) => 10 + i),
      );
      seenMidway.push(await warehouse.countRows(destination));
      yield keyedRows(DAY, [9_000_000]);
    }
    const { rowsWritten } = await warehouse.replaceDay(dayOf(destination, DAY), schema, observed());
    expect(seenMidway).toEqual([2]);
    expect(rowsWritten).toBe(5001);
    expect(await warehouse.countRows(destination)).toBe(5001);
  });

  it("refuses rows outside the day and keeps the day as it was", async () => {
    const destination = await fresh();
    const before = keyedRows(DAY, [1]);
    await warehouse.replaceDay(dayOf(destination, DAY), schema, batchesOf(before));
    const stray = [...keyedRows(DAY, [2]), ...keyedRows("2024-05-07", [3])];
    const attempt = warehouse.replaceDay(dayOf(destination, DAY), schema, batchesOf(stray));
    await expect(attempt).rejects.toBeInstanceOf(RefusalError);
    await expect(attempt).rejects.toThrow("appended 2 rows but the day holds 1");
    expect(await readDuckDbDay(warehouse, dayOf(destination, DAY), schema)).toEqual(before);
    expect(await warehouse.countRows(destination)).toBe(1);
  });

  it("keeps the day as it was when replaceDay's record throws: the entry and the day commit together", async () => {
    const destination = await fresh();
    const before = keyedRows(DAY, [1]);
    await warehouse.replaceDay(dayOf(destination, DAY), schema, batchesOf(before));
    const attempt = warehouse.replaceDay(
      dayOf(destination, DAY),
      schema,
      batchesOf(keyedRows(DAY, [2, 3])),
      "id",
      async ({ figures }) => {
        throw new RefusalError(`refused a day of ${figures?.rows} rows`);
      },
    );
    await expect(attempt).rejects.toThrow("refused a day of 2 rows");
    expect(await readDuckDbDay(warehouse, dayOf(destination, DAY), schema)).toEqual(before);
  });

  it.each([
    ["amount", 3, "1.234", /column amount cannot store "1.234" exactly/],
    ["amount", 3, "12345678901.00", /column amount cannot store "12345678901.00" exactly/],
    ["created_at", 1, `${DAY} 24:00:00`, /column created_at cannot store/],
    ["id", 0, "-1", /column id cannot store "-1" exactly \(bigint out of uint64 range\)/],
    ["note", 2, 42, /column note cannot store 42 exactly/],
  ])(
    "refuses a value %s cannot hold exactly (%s: %s) and keeps the day",
    async (_name, index, value, message) => {
      const destination = await fresh();
      await warehouse.replaceDay(dayOf(destination, DAY), schema, batchesOf(keyedRows(DAY, [1])));
      const bad = keyedRows(DAY, [2, 3]).map((row, i) =>
        i === 1 ? row.map((v, c) => (c === index ? value : v)) : row,
      );
      const attempt = warehouse.replaceDay(dayOf(destination, DAY), schema, batchesOf(bad));
      await expect(attempt).rejects.toBeInstanceOf(RefusalError);
      await expect(attempt).rejects.toThrow(message);
      expect(await readDuckDbDay(warehouse, dayOf(destination, DAY), schema)).toEqual(keyedRows(DAY, [1]));
    },
  );

  it("runs concurrent replaces of one table to completion, each day holding one copy", async () => {
    const destination = await fresh();
    const days = ["2024-05-01", "2024-05-02", "2024-05-03"];
    const rows = (day: string) =>
      keyedRows(
        day,
        Array.from({ length: 3000 }, (_, i) => i + 1),
      );
    const results = await Promise.all([
      ...days.map((day) => warehouse.replaceDay(dayOf(destination, day), schema, batchesOf(rows(day), 700))),
      ...days.map((day) => warehouse.replaceDay(dayOf(destination, day), schema, batchesOf(rows(day), 900))),
    ]);
    expect(results.map((result) => result.rowsWritten)).toEqual(Array(6).fill(3000));
    expect(await warehouse.countRows(destination)).toBe(9000);
    for (const day of days)
      expect(await readDuckDbDay(warehouse, dayOf(destination, day), schema)).toEqual(rows(day));
  });

  it("refuses a filter column the schema does not have, before touching anything", async () => {
    const destination = { dataset: "archive", table: uniqueName("t") };
    await expect(warehouse.ensureTable(destination, schema, "missing")).rejects.toThrow(
      "filterColumn: missing is not a column of orders",
    );
    expect(await warehouse.countRows(destination)).toBe(0);
  });
});
