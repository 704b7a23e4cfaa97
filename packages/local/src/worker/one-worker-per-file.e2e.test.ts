import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CopyDayTask, TaskPayload } from "@table-archiver/core";
import { createLocalTaskQueue, localJobId } from "@table-archiver/core/local-queue";
import type { TaskQueue } from "@table-archiver/core/ports";
import {
  createTestDatabase,
  deleteTestKeys,
  type TestDatabase,
  testRedisUrl,
  uniqueName,
} from "@table-archiver/core/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliWorkerProcess, holdsFileLock, spawnCliWorker, waitFor } from "./testing/cli-worker";

/**
 * Two `archiver worker` processes on one DuckDB file: the second refuses to
 * start with one line naming the file and the holder, and takes no task. It
 * works its own queue (another LOCAL_QUEUE_PREFIX), so whatever it took would
 * show there, untouched by the first worker.
 */
let db: TestDatabase;
let dir: string;
let first: CliWorkerProcess | undefined;
let queue: TaskQueue;
const table = uniqueName("orders");
const firstPrefix = uniqueName("first");
const secondPrefix = uniqueName("second");
const tasks: CopyDayTask[] = ["2020-01-01", "2020-01-02"].map((day) => ({
  kind: "copy",
  table,
  destination: `${table}_archive`,
  filterColumn: "created_at",
  day,
}));

const env = (prefix: string): Record<string, string> => ({
  MYSQL_URL: db.url,
  REDIS_URL: testRedisUrl,
  WAREHOUSE: "duckdb",
  DUCKDB_PATH: join(dir, "warehouse.duckdb"),
  QUEUE: "local",
  LOCAL_QUEUE_PREFIX: prefix,
  // One attempt: a worker that took a task it cannot run would fail it for good at once.
  TASK_ATTEMPTS: "1",
  LOG_LEVEL: "error",
});

beforeAll(async () => {
  db = await createTestDatabase();
  await db.connection.query(
    `CREATE TABLE ${table} (id INT AUTO_INCREMENT PRIMARY KEY, created_at DATETIME NOT NULL, KEY (created_at));
     INSERT INTO ${table} (created_at) VALUES ('2020-01-01 01:00:00'), ('2020-01-02 01:00:00'), ('2020-01-02 02:00:00')`,
  );
  dir = await mkdtemp(join(tmpdir(), "one-worker-"));
  queue = createLocalTaskQueue({
    redis: { url: testRedisUrl, auth: undefined },
    prefix: secondPrefix,
    attempts: 1,
  });
});

afterAll(async () => {
  first?.child.kill("SIGKILL");
  await first?.exited;
  await queue?.close();
  await deleteTestKeys({ prefixes: [firstPrefix, secondPrefix], tables: [table] });
  if (dir) await rm(dir, { recursive: true, force: true });
  await db?.drop();
});

/** The holder's program as DuckDB names it (the node binary, however the path to it is spelt). */
function programOf(line: string | undefined): string {
  return /\(PID \d+, (.+?node)\)/.exec(line ?? "")?.[1] ?? "(no program named)";
}

/** Attempts the queue recorded for a job: started and finished (BullMQ's `ats` and `atm`). */
async function attemptsOf(task: TaskPayload): Promise<{ started: number; made: number }> {
  const redis = new Redis(testRedisUrl);
  try {
    const [started, made] = await redis.hmget(
      `${secondPrefix}:jobs-migration:${localJobId(task)}`,
      "ats",
      "atm",
    );
    return { started: Number(started ?? 0), made: Number(made ?? 0) };
  } finally {
    redis.disconnect();
  }
}

describe("one local worker per DuckDB file", () => {
  it("refuses a second worker on the same file with one line naming the file and the holder, and spends no attempt", async () => {
    const path = join(dir, "warehouse.duckdb");
    // A task of its own, so that the first worker holds the file whether it opens it at start or on first use.
    const firstQueue = createLocalTaskQueue({
      redis: { url: testRedisUrl, auth: undefined },
      prefix: firstPrefix,
      attempts: 1,
    });
    await firstQueue.enqueue([{ ...(tasks[0] as CopyDayTask), destination: `${table}_first` }]);
    await firstQueue.close();
    const holder = spawnCliWorker(["worker"], env(firstPrefix), dir);
    first = holder;
    await waitFor(
      30,
      () => holdsFileLock(holder.pid, path),
      () => `the first worker (pid ${holder.pid}) never locked ${path}; stderr: ${holder.stderr()}`,
    );

    await queue.enqueue(tasks);
    const second = spawnCliWorker(["worker", "--drain"], env(secondPrefix), dir);
    const ended = await Promise.race([
      second.exited,
      new Promise<undefined>((resolve) => setTimeout(resolve, 30_000, undefined)),
    ]);
    if (!ended) second.child.kill("SIGKILL");
    expect(ended, `the second worker is still running; stderr: ${second.stderr()}`).toEqual({
      code: 1,
      signal: null,
    });
    const lines = second.stderr().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `error: DuckDB file ${path} is in use by another process (PID ${holder.pid}, ${programOf(lines[0])}): ` +
        "one local worker per DuckDB file; stop that one, or give this worker another DUCKDB_PATH",
    );

    // Its queue is as it was: both tasks waiting, neither started.
    expect(await queue.count()).toBe(2);
    for (const task of tasks) expect(await attemptsOf(task)).toEqual({ started: 0, made: 0 });

    // Once the first worker has stopped, the file is free and a worker drains the queue.
    holder.child.kill("SIGTERM");
    await holder.exited;
    const again = spawnCliWorker(["worker", "--drain"], env(secondPrefix), dir);
    expect(await again.exited, again.stderr()).toEqual({ code: 0, signal: null });
    expect(await queue.count()).toBe(0);
  }, 120_000);
});
