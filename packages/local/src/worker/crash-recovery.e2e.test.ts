import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CopyDayTask } from "@table-archiver/core";
import { createLocalTaskQueue } from "@table-archiver/core/local-queue";
import type { TaskQueue } from "@table-archiver/core/ports";
import {
  createTestDatabase,
  deleteTestKeys,
  type TestDatabase,
  testRedisUrl,
  uniqueName,
} from "@table-archiver/core/testing";
import { Redis } from "ioredis";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliWorkerProcess, spawnCliWorker, waitFor } from "./testing/cli-worker";

/**
 * A copy task whose worker is killed (SIGKILL) in the middle of it, twice, and
 * that a third worker then finishes. The task is held in the middle by a lock
 * this test takes on its table (LOCK TABLES ... WRITE): the copy's read waits
 * for it, visible in the server's process list, until the test kills the
 * worker or, the third time, lets go. Each new worker starts right after the
 * kill; the time from the kill until the task runs again is printed.
 */
const ATTEMPTS = 3;
const DAY = "2020-01-01";
const BOUND_SECONDS = 30;

let db: TestDatabase;
let locker: mysql.Connection;
let dir: string;
let queue: TaskQueue;
const workers: CliWorkerProcess[] = [];
const table = uniqueName("orders");
const prefix = uniqueName("crash");
const task: CopyDayTask = {
  kind: "copy",
  table,
  destination: `${table}_archive`,
  filterColumn: "created_at",
  day: DAY,
};

beforeAll(async () => {
  db = await createTestDatabase();
  await db.connection.query(
    `CREATE TABLE ${table} (id INT AUTO_INCREMENT PRIMARY KEY, created_at DATETIME NOT NULL, KEY (created_at));
     INSERT INTO ${table} (created_at) VALUES ('${DAY} 01:00:00'), ('${DAY} 02:00:00'), ('${DAY} 03:00:00')`,
  );
  locker = await mysql.createConnection({ uri: db.url });
  dir = await mkdtemp(join(tmpdir(), "crash-recovery-"));
  queue = createLocalTaskQueue({ redis: { url: testRedisUrl, auth: undefined }, prefix, attempts: ATTEMPTS });
});

afterAll(async () => {
  for (const worker of workers) worker.child.kill("SIGKILL");
  await Promise.all(workers.map((worker) => worker.exited));
  await locker?.end().catch(() => {});
  await queue?.close();
  await deleteTestKeys({ prefixes: [prefix], tables: [table] });
  if (dir) await rm(dir, { recursive: true, force: true });
  await db?.drop();
});

function startWorker(): CliWorkerProcess {
  const worker = spawnCliWorker(
    ["worker", "--drain"],
    {
      MYSQL_URL: db.url,
      REDIS_URL: testRedisUrl,
      WAREHOUSE: "duckdb",
      DUCKDB_PATH: join(dir, "warehouse.duckdb"),
      QUEUE: "local",
      LOCAL_QUEUE_PREFIX: prefix,
      TASK_ATTEMPTS: String(ATTEMPTS),
      WORKER_CONCURRENCY: "1",
      LOG_LEVEL: "error",
    },
    dir,
  );
  workers.push(worker);
  return worker;
}

/** Server connections whose statement waits for the test's lock on the table: a copy in the middle of its read. */
async function waitingReads(): Promise<number[]> {
  const [rows] = await db.connection.query(
    "SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ? AND STATE = 'Waiting for table metadata lock'",
    [db.name],
  );
  return (rows as { ID: number }[]).map((row) => Number(row.ID));
}

/** Waits until a connection not seen before waits on the table: the task runs (again) in `worker`. */
async function untilTaskRuns(worker: CliWorkerProcess, seen: Set<number>): Promise<number[]> {
  let fresh: number[] = [];
  await waitFor(
    BOUND_SECONDS + 30,
    async () => {
      fresh = (await waitingReads()).filter((id) => !seen.has(id));
      return fresh.length > 0;
    },
    () => `the task never ran in worker pid ${worker.pid}; its stderr: ${worker.stderr()}`,
  );
  for (const id of fresh) seen.add(id);
  return fresh;
}

describe("crash recovery of the local worker", () => {
  it("runs a task killed twice in the middle again within seconds each time, and a third worker finishes it", async () => {
    await locker.query(`LOCK TABLES ${table} WRITE`);
    await queue.enqueue([task]);
    const seen = new Set<number>();
    let worker = startWorker();
    let connections = await untilTaskRuns(worker, seen);
    const recoveries: number[] = [];
    for (let kill = 1; kill <= 2; kill++) {
      worker.child.kill("SIGKILL");
      const killedAt = performance.now();
      await worker.exited;
      // The dead worker's read would wait on the server until the lock goes; it is of no use to anyone.
      for (const id of connections) await db.connection.query(`KILL ${id}`).catch(() => {});
      worker = startWorker();
      connections = await untilTaskRuns(worker, seen);
      const seconds = (performance.now() - killedAt) / 1000;
      recoveries.push(seconds);
      console.log(
        `[crash-recovery] kill -9 #${kill}: the task ran again ${seconds.toFixed(1)} s after the kill ` +
          "(a new worker started at once, its start-up included)",
      );
    }
    // The third run of three attempts: it must not be refused or failed for having stalled twice.
    await locker.query("UNLOCK TABLES");
    const ended = await Promise.race([
      worker.exited,
      new Promise<undefined>((resolve) => setTimeout(resolve, 60_000, undefined)),
    ]);
    expect(ended, `the third worker did not finish; stderr: ${worker.stderr()}`).toEqual({
      code: 0,
      signal: null,
    });
    const redis = new Redis(testRedisUrl);
    try {
      expect(await redis.sismember(`mig_${table}`, DAY)).toBe(1);
    } finally {
      redis.disconnect();
    }
    expect(await queue.count()).toBe(0);
    for (const seconds of recoveries) expect(seconds).toBeLessThan(BOUND_SECONDS);
  }, 240_000);
});
