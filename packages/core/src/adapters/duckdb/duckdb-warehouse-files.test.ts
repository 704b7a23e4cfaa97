import { spawn } from "node:child_process";
import { readdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TransientError } from "../../errors";
import { batchesOf, dayOf } from "../../testing/orders-fixture";
import {
  allTypesRows,
  allTypesSchema,
  keyedRows,
  keyedSchema,
} from "../../testing/warehouse-contract-fixtures";
import { DuckDbFileInUseError } from "./duckdb-errors";
import { createDuckDbWarehouse } from "./duckdb-warehouse";
import { type DuckDbSettings, openSharedDatabase } from "./shared-database";
import { readDuckDbDay } from "./testing/read-day";
import { folder, warehouseFolder } from "./testing/warehouse-folder";

// The column types a warehouse file gets: duckdb-warehouse-column-types.test.ts.

const DAY = "2024-05-06";

describe("DuckDB warehouse files", () => {
  beforeAll(warehouseFolder.make);
  afterAll(warehouseFolder.remove);

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
    expect(await readDuckDbDay(again, dayOf(destination, DAY, "at"), schema)).toEqual(allTypesRows(DAY));
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
    expect(await readDuckDbDay(two, dayOf(destination, DAY), schema)).toEqual(rows);
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
      expect(await readDuckDbDay(warehouse, dayOf(kept, DAY), schema)).toEqual(keyedRows(DAY, [4, 5, 6]));
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
      for (const dataset of ["archive", "elsewhere"]) {
        const pages = warehouse.dayKeys(dayOf({ dataset, table: "absent" }, DAY), "id", 10);
        expect(await pages[Symbol.asyncIterator]().next()).toEqual({ done: true, value: undefined });
      }
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

  it("reports a file another process keeps locked as a TransientError naming the file and the holder", async () => {
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
      const attempt = createDuckDbWarehouse({ path, dataset: "archive", lockWaitMs: 300 });
      await expect(attempt).rejects.toBeInstanceOf(TransientError);
      await expect(attempt).rejects.toBeInstanceOf(DuckDbFileInUseError);
      await expect(attempt).rejects.toThrow(
        `DuckDB file ${path} is in use by another process (PID ${holder.pid}, `,
      );
      await expect(attempt).rejects.toSatisfy((error: Error) =>
        /Could not set lock/.test(String((error.cause as Error).message)),
      );
    } finally {
      holder.kill();
    }
  });
});
