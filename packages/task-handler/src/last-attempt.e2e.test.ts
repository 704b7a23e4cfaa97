import { mkdtemp, rm } from "node:fs/promises";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as functions from "@google-cloud/functions-framework";
import { getTestServer } from "@google-cloud/functions-framework/testing";
import { type TaskPayload, taskKey } from "@table-archiver/core";
import { loadConfig } from "@table-archiver/core/config";
import { createRuntime, type Runtime } from "@table-archiver/core/runtime";
import { captureLogLines, deleteTestKeys, testRedisUrl, uniqueName } from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTaskHttpHandler } from "./task-http-handler";

// A task that fails with a transient error on every attempt (MySQL unreachable) on a queue of 3 attempts:
// the handler, told the attempt by Cloud Tasks' headers and the queue's maxAttempts by TASK_MAX_ATTEMPTS,
// ends the task's run as failed on the third, and not before. Real Redis holds the run's live counts.

const logs = captureLogLines();
const table = uniqueName("orders");
const prefix = uniqueName("last");
let dir: string;
let runtime: Runtime;
let server: Server;
let base: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "last-attempt-"));
  const config = loadConfig({
    MYSQL_URL: "mysql://root@127.0.0.1:1/nowhere",
    REDIS_URL: testRedisUrl,
    LOCAL_QUEUE_PREFIX: prefix,
    DUCKDB_PATH: join(dir, "w.duckdb"),
    TASK_MAX_ATTEMPTS: "3",
    LOG_LEVEL: "info",
  });
  runtime = await createRuntime(config);
  functions.http(
    "archiverTaskHandlerLastAttempt",
    createTaskHttpHandler(async () => runtime),
  );
  server = getTestServer("archiverTaskHandlerLastAttempt").listen(0);
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.close();
  await runtime?.close();
  await deleteTestKeys({ prefixes: [prefix], tables: [table] });
  await rm(dir, { recursive: true, force: true });
  logs.restore();
});

/** A run of one copy task, begun as the entry function begins it; returns the task. */
async function runOfOneTask(day: string): Promise<TaskPayload & { run: string }> {
  const run = crypto.randomUUID();
  const task = {
    kind: "copy",
    table,
    destination: table,
    filterColumn: "created_at",
    day,
    run,
  } as const;
  const counts = { copied: 0, cleaned: 0, refused: 0, deferred: 0, failed: 0, rows: 0, waitedMsByReason: {} };
  const start = {
    id: run,
    table,
    mode: "migration",
    dataset: "archive",
    startedAt: new Date().toISOString(),
  } as const;
  await runtime.runs.history.begin(start, [taskKey(task)], counts, start.startedAt);
  return task;
}

async function deliver(task: TaskPayload, retryCount: number) {
  const response = await fetch(base, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-cloudtasks-taskname": `${task.day}-copy`,
      "x-cloudtasks-queuename": "jobs-migration",
      "x-cloudtasks-taskretrycount": String(retryCount),
      "x-cloudtasks-taskexecutioncount": String(retryCount),
    },
    body: JSON.stringify(task),
  });
  return response.status;
}

const ended = (run: string) =>
  logs.lines.filter((line) => line.message === "run ended" && line.runId === run);
const failures = (day: string) =>
  logs.lines.filter(
    (line) => String(line.message).startsWith("task failed") && line.day === day && line.table === table,
  );

describe("a task that fails transiently on every attempt", () => {
  it("ends its run as failed on the queue's last attempt, and not before", async () => {
    const task = await runOfOneTask("2020-03-01");

    for (const retries of [0, 1]) expect(await deliver(task, retries)).toBe(503);
    expect(ended(task.run)).toEqual([]);
    expect(failures(task.day).map((line) => [line.attempt, line.retry])).toEqual([
      [1, true],
      [2, true],
    ]);

    // The third attempt is the queue's last: still a 503 (Cloud Tasks logs the failure), and the run ends.
    expect(await deliver(task, 2)).toBe(503);
    expect(failures(task.day).at(-1)).toMatchObject({ attempt: 3, retry: false });
    expect(ended(task.run)).toEqual([
      expect.objectContaining({
        table,
        mode: "migration",
        queued: 1,
        failed: 1,
        copied: 0,
        result: "failed",
      }),
    ]);
    const records = await (await runtime.warehouse()).runs({ dataset: "archive" }, { table });
    expect(records).toEqual([expect.objectContaining({ id: task.run, failed: 1, result: "failed" })]);

    // A second delivery of that last attempt (Cloud Tasks delivers at least once) counts nothing again.
    expect(await deliver(task, 2)).toBe(503);
    expect(ended(task.run)).toHaveLength(1);
    expect(await (await runtime.warehouse()).runs({ dataset: "archive" }, { table })).toHaveLength(1);
  });

  it("a call without Cloud Tasks' count never ends the run, however often it fails", async () => {
    const task = await runOfOneTask("2020-03-02");
    for (let i = 0; i < 4; i++) {
      const response = await fetch(base, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(task),
      });
      expect(response.status).toBe(503);
    }
    expect(ended(task.run)).toEqual([]);
  });
});
