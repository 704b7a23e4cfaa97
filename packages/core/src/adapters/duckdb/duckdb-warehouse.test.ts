import { spawn } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Row, TableSchema } from "../../domain/types/table-schema";
import { TransientError, VerificationError } from "../../errors";
import { batchesOf, dayOf } from "../../testing/orders-fixture";
import { uniqueName } from "../../testing/test-services";
import { describeWarehouseContract } from "../../testing/warehouse-contract";
import {
  allTypesRows,
  allTypesSchema,
  keyedRows,
  keyedSchema,
} from "../../testing/warehouse-contract-fixtures";
import { createDuckDbWarehouse, type DuckDbWarehouse } from "./duckdb-warehouse";
import { type DuckDbSettings, openSharedDatabase } from "./shared-database";

const DAY = "2024-05-06";

describeWarehouseContract("DuckDB", async () => {
  const warehouse = await createDuckDbWarehouse({ path: ":memory:", dataset: "archive" });
  return {
    warehouse,
    readDay: (at, schema) => warehouse.readDay(at, schema),
    cleanup: () => warehouse.close(),
  };
});

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
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "duckdb-warehouse-"));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("creates the parent folder, and the data survives close and reopen (dataset named like the file)", async () => {
    // A dataset named like the database file makes unqualified dataset.table ambiguous in DuckDB.
    const path = join(folder, "nested", "deeper", "archive.duckdb");
    const destination = { dataset: "archive", table: "all_types" };
    const schema = allTypesSchema();
    const first = await createDuckDbWarehouse({ path, dataset: "archive" });
    await first.ensureTable(destination, schema, "at");
    await first.replaceDay(dayOf(destination, DAY, "at"), schema, batchesOf(allTypesRows(DAY)));
    await first.close();

    const again = await createDuckDbWarehouse({ path, dataset: "archive" });
    expect(await again.countRows(destination)).toBe(4);
    expect(await again.readDay(dayOf(destination, DAY, "at"), schema)).toEqual(allTypesRows(DAY));
    await again.close();
  });

  /** DuckDB's memory limit, threads and checkpoint threshold of a warehouse opened with `settings`. */
  async function openedSettings(name: string, settings: DuckDbSettings): Promise<unknown[] | undefined> {
    const path = join(folder, `${name}.duckdb`);
    const warehouse = await createDuckDbWarehouse({ path, dataset: "archive", ...settings });
    const shared = await openSharedDatabase(path);
    try {
      const connection = await shared.instance.connect();
      const reader = await connection.runAndReadAll(
        `SELECT current_setting('memory_limit'), current_setting('threads'), current_setting('checkpoint_threshold')`,
      );
      connection.closeSync();
      return reader.getRows()[0];
    } finally {
      shared.release();
      await warehouse.close();
    }
  }

  it("opens the database with the configured memory limit, threads and checkpoint threshold", async () => {
    const settings = { memoryLimit: "48MB", threads: 2, checkpointThreshold: "1GB" };
    expect(await openedSettings("settings", settings)).toEqual(["45.7 MiB", 2n, "953.6 MiB"]);
  });

  it("runs DuckDB on one thread unless told otherwise", async () => {
    expect((await openedSettings("default-settings", {}))?.[1]).toEqual(1n);
  });

  it("shares one database between warehouses opened on the same file in one process", async () => {
    // Two DuckDB instances on one file would not see each other's writes and would overwrite each other.
    const path = join(folder, "shared.duckdb");
    const destination = { dataset: "archive", table: "shared" };
    const schema = keyedSchema();
    const [one, two] = await Promise.all([
      createDuckDbWarehouse({ path, dataset: "archive" }),
      createDuckDbWarehouse({ path: join(folder, ".", "shared.duckdb"), dataset: "archive" }),
    ]);
    await one.ensureTable(destination, schema, "created_at");
    const rows = keyedRows(
      DAY,
      Array.from({ length: 2500 }, (_, i) => i + 1),
    );
    await Promise.all([
      one.replaceDay(dayOf(destination, DAY), schema, batchesOf(rows, 600)),
      two.replaceDay(dayOf(destination, DAY), schema, batchesOf(rows, 800)),
    ]);
    expect(await two.readDay(dayOf(destination, DAY), schema)).toEqual(rows);
    await one.close();
    await expect(one.countRows(destination)).rejects.toThrow(/is closed/);
    expect(await two.countRows(destination)).toBe(2500);
    await two.close();
    const reopened = await createDuckDbWarehouse({ path, dataset: "archive" });
    expect(await reopened.countRows(destination)).toBe(2500);
    await reopened.close();
  });

  it("fails a day whose table was dropped under it, and goes on with other days", async () => {
    // The table's columns are cached by ensureTable, so the day's BEGIN and DELETE go in one call.
    const path = join(folder, "dropped.duckdb");
    const schema = keyedSchema();
    const gone = { dataset: "archive", table: "gone" };
    const kept = { dataset: "archive", table: "kept" };
    const warehouse = await createDuckDbWarehouse({ path, dataset: "archive" });
    const shared = await openSharedDatabase(path);
    try {
      await warehouse.ensureTable(gone, schema, "created_at");
      await warehouse.ensureTable(kept, schema, "created_at");
      await warehouse.replaceDay(dayOf(kept, DAY), schema, batchesOf(keyedRows(DAY, [1, 2])));
      const connection = await shared.instance.connect();
      await connection.run(`DROP TABLE dropped.archive.gone`);
      connection.closeSync();

      const attempt = warehouse.replaceDay(dayOf(gone, DAY), schema, batchesOf(keyedRows(DAY, [3])));
      await expect(attempt).rejects.toThrow(/gone/);
      await warehouse.replaceDay(dayOf(kept, DAY), schema, batchesOf(keyedRows(DAY, [4, 5, 6])));
      expect(await warehouse.readDay(dayOf(kept, DAY), schema)).toEqual(keyedRows(DAY, [4, 5, 6]));
      expect(await warehouse.countRows(gone)).toBe(0);
    } finally {
      shared.release();
      await warehouse.close();
    }
  });

  it("lists no keys of an absent table without creating it, its dataset or any file", async () => {
    const folderOf = join(folder, "keys");
    const path = join(folderOf, "keys.duckdb");
    const warehouse = await createDuckDbWarehouse({ path, dataset: "archive" });
    const files = await readdir(folderOf);
    try {
      expect(await warehouse.dayKeys(dayOf({ dataset: "archive", table: "absent" }, DAY), "id")).toEqual([]);
      expect(await warehouse.dayKeys(dayOf({ dataset: "elsewhere", table: "absent" }, DAY), "id")).toEqual(
        [],
      );
      expect(await readdir(folderOf)).toEqual(files);
    } finally {
      await warehouse.close();
    }
    const instance = await DuckDBInstance.create(path);
    try {
      const connection = await instance.connect();
      const tables = await connection.runAndReadAll("SELECT table_name FROM duckdb_tables()");
      const schemas = await connection.runAndReadAll(
        "SELECT schema_name FROM duckdb_schemas() WHERE database_name = 'keys' ORDER BY schema_name",
      );
      connection.closeSync();
      expect(tables.getRows()).toEqual([]);
      expect(schemas.getRows().flat()).not.toContain("elsewhere");
    } finally {
      instance.closeSync();
    }
  });

  it("reports a file locked by another process as a TransientError", async () => {
    const path = join(folder, "locked.duckdb");
    const api = createRequire(import.meta.url).resolve("@duckdb/node-api");
    const holder = spawn(process.execPath, [
      "-e",
      `require(${JSON.stringify(api)}).DuckDBInstance.create(${JSON.stringify(path)})
         .then(() => console.log("holding"));
       setTimeout(() => {}, 60000);`,
    ]);
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout.on("data", (data) => String(data).includes("holding") && resolve());
        holder.on("exit", (code) => reject(new Error(`lock holder exited with ${code}`)));
      });
      const attempt = createDuckDbWarehouse({ path, dataset: "archive" });
      await expect(attempt).rejects.toBeInstanceOf(TransientError);
      await expect(attempt).rejects.toThrow(/Could not set lock/);
    } finally {
      holder.kill();
    }
  });

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
    expect(await warehouse.readDay(dayOf(destination, DAY), keyedSchema())).toEqual(keyedRows(DAY, [1, 2]));
    expect(await warehouse.readDay(dayOf(destination, "2024-05-07"), keyedSchema())).toEqual(wide);
    await warehouse.close();
    expect((await columnTypes(path, "widen")).amount).toBe("DECIMAL(12,2)");
  });
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
    await expect(attempt).rejects.toBeInstanceOf(VerificationError);
    await expect(attempt).rejects.toThrow("appended 2 rows but the day holds 1");
    expect(await warehouse.readDay(dayOf(destination, DAY), schema)).toEqual(before);
    expect(await warehouse.countRows(destination)).toBe(1);
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
      await expect(attempt).rejects.toBeInstanceOf(VerificationError);
      await expect(attempt).rejects.toThrow(message);
      expect(await warehouse.readDay(dayOf(destination, DAY), schema)).toEqual(keyedRows(DAY, [1]));
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
      expect(await warehouse.readDay(dayOf(destination, day), schema)).toEqual(rows(day));
  });

  it("refuses a filter column the schema does not have, before touching anything", async () => {
    const destination = { dataset: "archive", table: uniqueName("t") };
    await expect(warehouse.ensureTable(destination, schema, "missing")).rejects.toThrow(
      "filterColumn: missing is not a column of orders",
    );
    expect(await warehouse.countRows(destination)).toBe(0);
  });
});
