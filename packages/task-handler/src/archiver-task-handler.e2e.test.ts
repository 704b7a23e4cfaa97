import { mkdtemp, rm } from "node:fs/promises";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as functions from "@google-cloud/functions-framework";
import { getTestServer } from "@google-cloud/functions-framework/testing";
import { loadConfig } from "@table-archiver/core/config";
import { closeSharedRuntime, createRuntime, sharedRuntime } from "@table-archiver/core/runtime";
import {
  captureLogLines,
  createTestDatabase,
  deleteTestKeys,
  type TestDatabase,
  testRedisUrl,
  uniqueName,
} from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTaskHttpHandler } from "./task-http-handler";

interface TaskResponse {
  readonly status?: string;
  readonly error?: { readonly code: string; readonly message: string };
}

let db: TestDatabase;
let server: Server;
let base: string;
/** Days the "settling" handler told the queue's bookkeeping were finished for good. */
const settled: string[] = [];
const table = uniqueName("orders");
const queuePrefix = uniqueName("th");
const copy = (day: string, extra: object = {}) => ({
  kind: "copy",
  table,
  destination: `${table}_archive`,
  filterColumn: "created_at",
  day,
  ...extra,
});

let dir: string | undefined;

// The task failures these tests provoke are logged as the function logs them; kept here, out of the run's output.
const logs = captureLogLines();

beforeAll(async () => {
  db = await createTestDatabase();
  await db.connection.query(
    `CREATE TABLE ${table} (id INT AUTO_INCREMENT PRIMARY KEY, created_at DATETIME(6) NOT NULL, amount DECIMAL(10,2), KEY (created_at))`,
  );
  await db.connection.query(
    `INSERT INTO ${table} (created_at, amount) VALUES ('2020-01-01 00:00:00', 1.10), ('2020-01-01 23:59:59.999999', 2.20), ('2020-01-02 00:00:00', 3.30)`,
  );
  dir = await mkdtemp(join(tmpdir(), "task-handler-"));
  const env = {
    MYSQL_URL: db.url,
    REDIS_URL: testRedisUrl,
    LOCAL_QUEUE_PREFIX: queuePrefix,
    DUCKDB_PATH: join(dir, "w.duckdb"),
    LOG_LEVEL: "error",
  };
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  await import("./function");
  const down = loadConfig({
    ...env,
    MYSQL_URL: "mysql://root@127.0.0.1:1/nowhere",
    DUCKDB_PATH: join(dir, "d.duckdb"),
  });
  functions.http(
    "archiverTaskHandlerMysqlDown",
    createTaskHttpHandler(() => createRuntime(down)),
  );
  functions.http(
    "archiverTaskHandlerSettling",
    createTaskHttpHandler(async () => {
      const runtime = await sharedRuntime();
      const queue = {
        ...runtime.queue,
        settle: async (task: { day: string }) => void settled.push(task.day),
      };
      return { ...runtime, queue };
    }),
  );
  server = getTestServer("archiverTaskHandler").listen(0);
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.close();
  await closeSharedRuntime();
  await deleteTestKeys({ prefixes: [queuePrefix], tables: [table] });
  await db?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
  vi.unstubAllEnvs();
  logs.restore();
});

async function post(body: unknown, headers: Record<string, string> = {}, url = base) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as TaskResponse };
}

describe("archiverTaskHandler through the Functions Framework", () => {
  it("copies a day and records it only after the counts agree", async () => {
    const { status, body } = await post(copy("2020-01-01"));
    expect(status).toBe(200);
    expect(body.status).toBe("done");
    const runtime = await sharedRuntime();
    expect(await runtime.storeLedger.migratedDays(table)).toEqual(["2020-01-01"]);
    const record = await runtime.storeLedger.copiedDay(table, "2020-01-01");
    expect(record?.figures).toMatchObject({
      rows: 2,
      key: { column: "id", count: 2, sum: "3", min: "1", max: "2" },
    });
  });

  it("copying the same day again leaves one copy", async () => {
    expect((await post(copy("2020-01-01"))).status).toBe(200);
    const runtime = await sharedRuntime();
    const warehouse = await runtime.warehouse();
    const destination = { dataset: "archive", table: `${table}_archive` };
    expect(await warehouse.countRows(destination)).toBe(2);
  });

  it.each([
    ["an unknown kind", { ...copy("2020-01-01"), kind: "drop" }],
    ["an unreal day", copy("2020-02-30")],
    ["an extra field", copy("2020-01-01", { force: true })],
    ["a missing table", { ...copy("2020-01-01"), table: "no_such_table" }],
    ["a filter column that is not DATETIME", copy("2020-01-02", { filterColumn: "amount" })],
    ["a day that is not over yet", copy("2999-01-01")],
  ])("answers 400 for %s and records nothing", async (_case, body) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(response.body.error?.code).toBe("INVALID_INPUT");
    expect(typeof response.body.error?.message).toBe("string");
    const runtime = await sharedRuntime();
    expect(await runtime.storeLedger.migratedDays(table)).toEqual(["2020-01-01"]);
  });

  it("answers 200 'failed' to Cloud Tasks for a task that can never succeed, so it is not retried", async () => {
    const response = await post(
      { ...copy("2020-01-01"), kind: "drop" },
      {
        "x-cloudtasks-taskname": "t1",
        "x-cloudtasks-queuename": "jobs-migration",
        "x-cloudtasks-taskretrycount": "0",
      },
    );
    expect(response.status).toBe(200);
    expect(response.body.status).toBe("failed");
    expect(response.body.error?.code).toBe("INVALID_INPUT");
  });

  it("answers 405 to anything but POST", async () => {
    const response = await fetch(base, { method: "GET" });
    expect(response.status).toBe(405);
    expect(((await response.json()) as TaskResponse).error?.code).toBe("METHOD_NOT_ALLOWED");
  });

  it("answers 503 when MySQL is down so the queue retries", async () => {
    const down = getTestServer("archiverTaskHandlerMysqlDown").listen(0);
    try {
      const url = `http://127.0.0.1:${(down.address() as AddressInfo).port}`;
      const response = await post(copy("2020-01-02"), {}, url);
      expect(response.status).toBe(503);
      expect(response.body.error?.code).toBe("TRANSIENT");
    } finally {
      down.close();
    }
  });
});

describe("archiverTaskHandler and the queue's bookkeeping", () => {
  it("settles a task once it is done, and one that can never succeed", async () => {
    const settling = getTestServer("archiverTaskHandlerSettling").listen(0);
    try {
      const url = `http://127.0.0.1:${(settling.address() as AddressInfo).port}`;
      expect((await post(copy("2020-01-02"), {}, url)).status).toBe(200);
      expect((await post(copy("2020-01-03", { filterColumn: "amount" }), {}, url)).status).toBe(400);
      expect(settled).toEqual(["2020-01-02", "2020-01-03"]);
    } finally {
      settling.close();
    }
  });
});
