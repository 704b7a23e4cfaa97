import type { DuckDbWarehouse } from "../adapters/duckdb/duckdb-warehouse";
import { readDuckDbDay } from "../adapters/duckdb/testing/read-day";
import type { CopyDayDeps } from "../domain/copy/copy-day";
import type { Row, TableSchema } from "../model/table-schema";
import type { CopyDayTask } from "../model/task";
import { createTestRuntime, type TestRuntime } from "./test-runtime";
import { createTestDatabase, type TestDatabase } from "./test-services";

/**
 * What the copyDay tests on MariaDB share: the file's database (made in its
 * beforeAll, dropped in its afterAll) and a fresh runtime on it for each test.
 * vitest gives each test file its own instance of this module, so each file
 * has its own database and runtime.
 */
const NOW = "2026-11-21T12:00:00Z";
export let db: TestDatabase;
export let t: TestRuntime;

/** The file's hooks: beforeAll, afterAll, and beforeEach, whose returned close vitest runs after each test. */
export const fixture = {
  async createDatabase(): Promise<void> {
    db = await createTestDatabase();
    await db.connection.query("SET SESSION sql_mode = ''");
  },
  async dropDatabase(): Promise<void> {
    await db.drop();
  },
  async startRuntime(): Promise<() => Promise<void>> {
    const runtime = await createTestRuntime({ mysqlUrl: db.url, now: NOW });
    t = runtime;
    return () => runtime.close();
  },
};

/** The runtime's copy wiring (its zone is UTC), in batches of 100 rows. */
export function deps(overrides: Partial<CopyDayDeps> = {}): CopyDayDeps {
  return { ...t.runtime.copy, batchRows: 100, ...overrides };
}

export const task = (table: string, day: string): CopyDayTask => ({
  kind: "copy",
  table,
  destination: `${table}_archive`,
  filterColumn: "created_at",
  day,
});

export async function readBack(table: string, day: string): Promise<{ schema: TableSchema; rows: Row[] }> {
  const schema = (await t.runtime.source.describeTable(table)) as TableSchema;
  const warehouse = (await t.runtime.warehouse()) as DuckDbWarehouse;
  const rows = await readDuckDbDay(
    warehouse,
    { destination: { dataset: "archive", table: `${table}_archive` }, filterColumn: "created_at", day },
    schema,
  );
  return { schema, rows };
}
