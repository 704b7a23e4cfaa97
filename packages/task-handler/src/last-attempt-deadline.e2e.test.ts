import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TaskPayload, taskKey } from "@table-archiver/core";
import { loadConfig } from "@table-archiver/core/config";
import { createRuntime, type Runtime } from "@table-archiver/core/runtime";
import {
  captureLogLines,
  createTestDatabase,
  deleteTestKeys,
  type TestDatabase,
  testRedisUrl,
  uniqueName,
} from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeadlineTimer } from "./last-attempt-deadline";
import { createTaskHttpHandler } from "./task-http-handler";

// The last attempt's deadline on MariaDB, Redis and DuckDB, timed by a clock moved by hand: a copy
// still running shortly before Cloud Tasks' dispatch deadline (600 s, so 30 s before it) is counted
// failed in its run, once; a copy that finishes first clears the timer and counts as itself.

const logs = captureLogLines();
const table = uniqueName("orders");
const prefix = uniqueName("deadline");
const DEADLINE_MS = 600_000;
const FIRES_AT = DEADLINE_MS - 30_000;
let db: TestDatabase;
let dir: string;
let runtime: Runtime;
let cloudRuntime: Runtime;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.connection.query(
    `CREATE TABLE ${table} (id INT AUTO_INCREMENT PRIMARY KEY, created_at DATETIME NOT NULL, KEY (created_at))`,
  );
  await db.connection.query(
    `INSERT INTO ${table} (created_at) VALUES ('2020-04-01 01:00:00'), ('2020-04-02 01:00:00'), ('2020-04-03 01:00:00')`,
  );
  dir = await mkdtemp(join(tmpdir(), "last-attempt-deadline-"));
  const env = {
    MYSQL_URL: db.url,
    REDIS_URL: testRedisUrl,
    LOCAL_QUEUE_PREFIX: prefix,
    DUCKDB_PATH: join(dir, "w.duckdb"),
    TASK_MAX_ATTEMPTS: "3",
    LOG_LEVEL: "info",
  };
  runtime = await createRuntime(loadConfig(env));
  // The handler as deployed: its configuration names the Cloud Tasks queue and its dispatch deadline.
  const cloudTasks = loadConfig({
    ...env,
    QUEUE: "cloud-tasks",
    CLOUD_TASKS_PROJECT: "p",
    CLOUD_TASKS_LOCATION: "europe-west1",
    TASK_HANDLER_URL: "https://example.test/task",
    TASK_INVOKER_SERVICE_ACCOUNT: "invoker@p.iam.gserviceaccount.com",
    TASK_DISPATCH_DEADLINE_SECONDS: String(DEADLINE_MS / 1000),
  });
  cloudRuntime = { ...runtime, config: cloudTasks };
}, 60_000);

afterAll(async () => {
  await runtime?.close();
  await deleteTestKeys({ prefixes: [prefix], tables: [table] });
  await db?.drop();
  await rm(dir, { recursive: true, force: true });
  logs.restore();
});

/** A timer whose clock moves only when the test says: `advance` fires what falls due and waits for it. */
function handTimer() {
  let now = 0;
  const armed: Array<{ at: number; fire: () => Promise<void>; cancelled: boolean; fired: boolean }> = [];
  const timer: DeadlineTimer = {
    now: () => now,
    set(ms, fire) {
      const entry = { at: now + ms, fire, cancelled: false, fired: false };
      armed.push(entry);
      return () => {
        entry.cancelled = true;
      };
    },
  };
  return {
    timer,
    armed,
    async advance(ms: number) {
      now += ms;
      for (const entry of armed) {
        if (entry.cancelled || entry.fired || entry.at > now) continue;
        entry.fired = true;
        await entry.fire();
      }
    },
  };
}

/** A run of one copy task, begun as the entry function begins it; returns the task. */
async function runOfOneTask(day: string): Promise<TaskPayload & { run: string }> {
  const run = crypto.randomUUID();
  const task = { kind: "copy", table, destination: table, filterColumn: "created_at", day, run } as const;
  const counts = { copied: 0, cleaned: 0, refused: 0, deferred: 0, failed: 0, rows: 0, waitedMsByReason: {} };
  const startedAt = new Date().toISOString();
  const start = { id: run, table, mode: "migration", dataset: "archive", startedAt } as const;
  await runtime.runs.history.begin(start, [taskKey(task)], counts, startedAt);
  return task;
}

/** The runtime, its copies held at their first read until `release` is called. */
function heldRuntime() {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let entered: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const ledger = cloudRuntime.copy.ledger;
  const held: Runtime = {
    ...cloudRuntime,
    copy: {
      ...cloudRuntime.copy,
      ledger: {
        ...ledger,
        copiedDay: async (...args: Parameters<typeof ledger.copiedDay>) => {
          entered();
          await gate;
          return ledger.copiedDay(...args);
        },
      },
    },
  };
  return { held, started, release };
}

/** Calls the handler as Cloud Tasks does, on attempt `retryCount + 1`; resolves with the status. */
async function deliver(
  handler: ReturnType<typeof createTaskHttpHandler>,
  task: TaskPayload,
  retryCount: number,
) {
  let status = 0;
  const res = {
    status(code: number) {
      status = code;
      return res;
    },
    json() {},
  };
  const headers = {
    "x-cloudtasks-taskname": `${task.day}-copy`,
    "x-cloudtasks-queuename": "jobs-migration",
    "x-cloudtasks-taskretrycount": String(retryCount),
  };
  await handler({ method: "POST", headers, body: task }, res);
  return status;
}

const ended = (run: string) =>
  logs.lines.filter((line) => line.message === "run ended" && line.runId === run);
const outOfTime = (day: string) =>
  logs.lines.filter(
    (line) => String(line.message).includes("ran out of time") && line.day === day && line.table === table,
  );
const records = async () => (await runtime.warehouse()).runs({ dataset: "archive" }, { table });

describe("the last attempt's deadline", () => {
  it("counts a task still running shortly before it failed, once, and lets the task finish", async () => {
    const task = await runOfOneTask("2020-04-01");
    const hand = handTimer();
    const { held, started, release } = heldRuntime();
    const answered = deliver(
      createTaskHttpHandler(async () => held, { timer: hand.timer }),
      task,
      2,
    );
    await started;
    expect(hand.armed.map((entry) => entry.at)).toEqual([FIRES_AT]);

    await hand.advance(FIRES_AT - 1);
    expect(ended(task.run)).toEqual([]);
    await hand.advance(1);
    expect(outOfTime(task.day)).toEqual([
      expect.objectContaining({ severity: "ERROR", code: "TRANSIENT", retry: false, attempt: 3 }),
    ]);
    expect(ended(task.run)).toEqual([
      expect.objectContaining({ queued: 1, copied: 0, failed: 1, result: "failed" }),
    ]);

    // The copy goes on and succeeds: the day is copied, and the run, finished, counts nothing more.
    release();
    expect(await answered).toBe(200);
    expect(await runtime.storeLedger.copiedDay(table, task.day)).toBeDefined();
    expect(ended(task.run)).toHaveLength(1);
    expect((await records()).filter((run) => run.id === task.run)).toEqual([
      expect.objectContaining({ copied: 0, failed: 1, result: "failed" }),
    ]);
  });

  it("is cleared by a task that finishes first, which counts once as itself", async () => {
    const task = await runOfOneTask("2020-04-02");
    const hand = handTimer();
    const handler = createTaskHttpHandler(async () => cloudRuntime, { timer: hand.timer });
    expect(await deliver(handler, task, 2)).toBe(200);
    expect(hand.armed).toEqual([expect.objectContaining({ at: FIRES_AT, cancelled: true })]);
    await hand.advance(DEADLINE_MS);
    expect(outOfTime(task.day)).toEqual([]);
    expect(ended(task.run)).toEqual([
      expect.objectContaining({ queued: 1, copied: 1, failed: 0, rows: 1, result: "succeeded" }),
    ]);
  });

  it("is armed on the queue's last attempt only", async () => {
    const task = await runOfOneTask("2020-04-03");
    const hand = handTimer();
    const { held, started, release } = heldRuntime();
    const handler = createTaskHttpHandler(async () => held, { timer: hand.timer });
    const answered = deliver(handler, task, 1);
    await started;
    await hand.advance(DEADLINE_MS);
    expect(hand.armed).toEqual([]);
    release();
    expect(await answered).toBe(200);
    expect(outOfTime(task.day)).toEqual([]);
    expect(ended(task.run)).toMatchObject([{ copied: 1, result: "succeeded" }]);
  });
});
