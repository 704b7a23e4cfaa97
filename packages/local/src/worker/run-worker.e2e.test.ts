import { type TaskPayload, TransientError } from "@table-archiver/core";
import { createRedisClient } from "@table-archiver/core/redis";
import type { Runtime } from "@table-archiver/core/runtime";
import {
  createTestDatabase,
  createTestRuntime,
  type LogLine,
  type TestDatabase,
  type TestRuntime,
  testRedisUrl,
  uniqueName,
} from "@table-archiver/core/testing";
import { createTaskHttpHandler } from "@table-archiver/task-handler";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FailedTask, runWorker } from "./run-worker";

let db: TestDatabase;
let test: TestRuntime;
let redis: Redis;
const table = uniqueName("orders");
const copy = (day: string, of = table): TaskPayload => ({
  kind: "copy",
  table: of,
  destination: `${of}_archive`,
  filterColumn: "created_at",
  day,
});
const unreachable = new TransientError("the migration ledger is unreachable");

/** The test runtime, except that reading the ledger for 2020-01-02 always fails transiently. */
function flakyRuntime(runtime: Runtime): Runtime {
  const ledger = {
    ...runtime.copy.ledger,
    copiedDay: (of: string, day: string) =>
      day === "2020-01-02" ? Promise.reject(unreachable) : runtime.copy.ledger.copiedDay(of, day),
  };
  return { ...runtime, copy: { ...runtime.copy, ledger } };
}

const failureLines = (logs: readonly LogLine[]) => logs.filter((l) => l.message.startsWith("task failed"));

beforeAll(async () => {
  db = await createTestDatabase();
  await db.connection.query(
    `CREATE TABLE ${table} (id INT AUTO_INCREMENT PRIMARY KEY, created_at DATETIME NOT NULL, KEY (created_at))`,
  );
  await db.connection.query(
    `INSERT INTO ${table} (created_at) VALUES ('2020-01-01 01:00:00'), ('2020-01-01 02:00:00'), ('2020-01-02 01:00:00')`,
  );
  test = await createTestRuntime({ mysqlUrl: db.url, env: { TASK_ATTEMPTS: "2" } });
  redis = createRedisClient({ url: testRedisUrl, auth: undefined });
});

afterAll(async () => {
  // The test runtime's own close: its queue keys, its tables' records and its DuckDB folder go too.
  await test?.close();
  if (redis) {
    for await (const keys of redis.scanStream({ match: `*${table}*` }) as AsyncIterable<string[]>) {
      if (keys.length > 0) await redis.del(...keys);
    }
    await redis.quit();
  }
  await db?.drop();
});

describe("runWorker", () => {
  it("logs every failed attempt as the HTTP handler does: retried with retry true, the last with retry false", async () => {
    const runtime = flakyRuntime(test.runtime);
    const missing = uniqueName("missing");
    await runtime.queue.enqueue([copy("2020-01-01"), copy("2020-01-02"), copy("2020-01-01", missing)]);
    const failed: FailedTask[] = [];
    const worker = await runWorker(runtime, { backoffMs: 20, onFailed: (f) => failed.push(f) });
    try {
      await worker.drained();
    } finally {
      await worker.close();
    }

    const lines = failureLines(test.logs);
    const flaky = lines
      .filter((l) => l.day === "2020-01-02")
      .sort((a, b) => Number(a.attempt) - Number(b.attempt));
    const common = {
      severity: "ERROR",
      message: `task failed: ${unreachable.message}`,
      code: "TRANSIENT",
      kind: "copy",
      table,
      day: "2020-01-02",
      maxAttempts: 2,
    };
    expect(flaky).toEqual([
      { ...common, retry: true, attempt: 1, jobId: expect.any(String) },
      { ...common, retry: false, attempt: 2, jobId: expect.any(String) },
    ]);
    const invalid = lines.filter((l) => l.table === missing);
    expect(invalid).toEqual([
      expect.objectContaining({
        code: "INVALID_INPUT",
        retry: false,
        attempt: 1,
        maxAttempts: 2,
        kind: "copy",
      }),
    ]);
    expect(lines).toHaveLength(3);

    // Each task that failed for good is reported once; the day that passed is tallied.
    expect(failed.map((f) => [f.task?.table, f.task?.day, f.code])).toEqual(
      expect.arrayContaining([
        [table, "2020-01-02", "TRANSIENT"],
        [missing, "2020-01-01", "INVALID_INPUT"],
      ]),
    );
    expect(failed).toHaveLength(2);
    expect(worker.outcomes()).toMatchObject({
      copied: { days: 1, rows: 2 },
      cleanup: { cleaned: 0, alreadyClean: 0, alreadyDone: 0, rowsDeleted: 0 },
      retried: 1,
    });
    expect(worker.progress()).toMatchObject({ done: 1, failed: 2, remaining: 0, rows: 2 });

    // The HTTP handler logs the same failure with the same message and fields, plus its own.
    const before = test.logs.length;
    const res = { status: () => res, json: () => {} };
    await createTaskHttpHandler(async () => runtime)(
      { method: "POST", headers: { "x-cloudtasks-taskretrycount": "0" }, body: copy("2020-01-02") },
      res,
    );
    const http = failureLines(test.logs.slice(before));
    expect(http).toHaveLength(1);
    const local = flaky[0] ?? {};
    const shared = ["severity", "message", "code", "retry", "kind", "table", "day", "attempt"];
    expect(pick(http[0] ?? {}, shared)).toEqual(pick(local, shared));
    const localOnly = Object.keys(local).filter((name) => !(name in (http[0] ?? {})));
    expect(localOnly.sort()).toEqual(["jobId", "maxAttempts"]);
  });
});

function pick(line: object, names: readonly string[]) {
  return Object.fromEntries(Object.entries(line).filter(([name]) => names.includes(name)));
}
