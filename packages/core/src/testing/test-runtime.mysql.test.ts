import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestRuntime } from "./test-runtime";
import { createTestDatabase, type TestDatabase } from "./test-services";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

describe("createTestRuntime", () => {
  it("removes its warehouse folder from the system temp directory when closed", async () => {
    const test = await createTestRuntime({ mysqlUrl: db.url });
    await test.runtime.warehouse();
    const folder = dirname(test.duckdbPath);
    expect(existsSync(test.duckdbPath)).toBe(true);
    await test.close();
    expect(existsSync(folder)).toBe(false);
  });
});
