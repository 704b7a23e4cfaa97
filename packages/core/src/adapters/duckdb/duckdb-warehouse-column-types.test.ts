import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TableSchema } from "../../model/table-schema";
import { batchesOf, dayOf } from "../../testing/orders-fixture";
import { allTypesSchema, keyedRows, keyedSchema } from "../../testing/warehouse-contract-fixtures";
import { createDuckDbWarehouse } from "./duckdb-warehouse";
import { readDuckDbDay } from "./testing/read-day";
import { folder, warehouseFolder } from "./testing/warehouse-folder";

// How warehouse files are made and shared: duckdb-warehouse-files.test.ts.

const DAY = "2024-05-06";

/** The column types of a closed warehouse file, read with a fresh DuckDB instance. */
async function columnTypes(path: string, table: string): Promise<Record<string, string>> {
  const instance = await DuckDBInstance.create(path);
  try {
    const connection = await instance.connect();
    const reader = await connection.runAndReadAll(
      "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = $1",
      [table],
    );
    connection.closeSync();
    return Object.fromEntries(reader.getRows().map(([name, type]) => [String(name), String(type)]));
  } finally {
    instance.closeSync();
  }
}

describe("DuckDB warehouse files", () => {
  beforeAll(warehouseFolder.make);
  afterAll(warehouseFolder.remove);

  it("creates the documented column types", async () => {
    const path = join(folder, "types.duckdb");
    const warehouse = await createDuckDbWarehouse({ path, dataset: "archive" });
    await warehouse.ensureTable({ dataset: "archive", table: "all_types" }, allTypesSchema(), "at");
    await warehouse.close();
    expect(await columnTypes(path, "all_types")).toEqual({
      id: "UBIGINT",
      at: "TIMESTAMP",
      i8: "TINYINT",
      u8: "UTINYINT",
      i16: "SMALLINT",
      u16: "USMALLINT",
      i24: "INTEGER",
      u24: "UINTEGER",
      i32: "INTEGER",
      u32: "UINTEGER",
      i64: "BIGINT",
      dec: "DECIMAL(12,2)",
      dec0: "DECIMAL(20,0)",
      dec38: "DECIMAL(38,10)",
      dec65: "VARCHAR",
      f32: "FLOAT",
      f64: "DOUBLE",
      ts: "TIMESTAMP",
      dt0: "TIMESTAMP",
      d: "DATE",
      t: "INTERVAL",
      t0: "INTERVAL",
      y: "USMALLINT",
      s: "VARCHAR",
      j: "JSON",
      b: "BLOB",
      bits: "UBIGINT",
      g: "BLOB",
    });
  });

  it("widens a column whose source type grew and keeps its rows", async () => {
    const path = join(folder, "widen.duckdb");
    const destination = { dataset: "archive", table: "widen" };
    const narrow: TableSchema = {
      ...keyedSchema(),
      columns: keyedSchema().columns.map((c) =>
        c.name === "amount" ? { ...c, logicalType: { kind: "decimal", precision: 8, scale: 2 } } : c,
      ),
    };
    const warehouse = await createDuckDbWarehouse({ path, dataset: "archive" });
    await warehouse.ensureTable(destination, narrow, "created_at");
    await warehouse.replaceDay(dayOf(destination, DAY), narrow, batchesOf(keyedRows(DAY, [1, 2])));
    await warehouse.ensureTable(destination, keyedSchema(), "created_at");
    const wide = keyedRows("2024-05-07", [3]).map((row) => [...row.slice(0, 3), "9999999999.99"]);
    await warehouse.replaceDay(dayOf(destination, "2024-05-07"), keyedSchema(), batchesOf(wide));
    expect(await readDuckDbDay(warehouse, dayOf(destination, DAY), keyedSchema())).toEqual(
      keyedRows(DAY, [1, 2]),
    );
    expect(await readDuckDbDay(warehouse, dayOf(destination, "2024-05-07"), keyedSchema())).toEqual(wide);
    await warehouse.close();
    expect((await columnTypes(path, "widen")).amount).toBe("DECIMAL(12,2)");
  });
});
