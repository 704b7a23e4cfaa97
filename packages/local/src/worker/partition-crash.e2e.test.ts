import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createTestDatabase,
  deleteTestKeys,
  type TestDatabase,
  testRedisUrl,
  uniqueName,
} from "@table-archiver/core/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCaptured } from "../cli/testing/run-captured";
import { type CliWorkerProcess, spawnCliWorker, waitFor } from "./testing/cli-worker";

/**
 * A partition's cleanup task whose worker is killed (SIGKILL) twice: right
 * after the partition was exchanged into its twin, then while the next worker
 * verifies the twin; a third worker finishes it. Chunks of one row make the
 * twin's 12 rows too many for one read (ten rows at most), so it is read a
 * day at a time, and CLEANUP_PAUSE_MS holds each run between the days, so
 * the test sees where it is from outside:
 * the twin holding the rows, a new holder of the days' lease.
 */
const DAYS = ["2020-01-10", "2020-01-11", "2020-01-12"];

let db: TestDatabase;
let dir: string;
let env: Record<string, string>;
const workers: CliWorkerProcess[] = [];
const table = uniqueName("events");
const prefix = uniqueName("partition-crash");
const twin = `archiver_twin__${table}__p2020_01`;

beforeAll(async () => {
  db = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), "partition-crash-"));
  env = {
    MYSQL_URL: db.url,
    REDIS_URL: testRedisUrl,
    WAREHOUSE: "duckdb",
    DUCKDB_PATH: join(dir, "warehouse.duckdb"),
    QUEUE: "local",
    LOCAL_QUEUE_PREFIX: prefix,
    LOG_LEVEL: "error",
    TASK_ATTEMPTS: "30",
    CLEANUP_PAUSE_MS: "2000",
    CLEANUP_CHUNK_ROWS: "1",
  };
  await db.connection.query(
    `CREATE TABLE ${table} (id INT NOT NULL AUTO_INCREMENT, created_at DATETIME NOT NULL, note VARCHAR(20),
       PRIMARY KEY (id, created_at), KEY (created_at))
     PARTITION BY RANGE (TO_DAYS(created_at)) (
       PARTITION p2020_01 VALUES LESS THAN (TO_DAYS('2020-02-01')),
       PARTITION pmax VALUES LESS THAN MAXVALUE)`,
  );
  const rows = DAYS.flatMap((day) =>
    [1, 2, 3, 4].map((hour) => [`${day} 0${hour}:00:00`, `${day} #${hour}`]),
  );
  await db.connection.query(`INSERT INTO ${table} (created_at, note) VALUES ?`, [rows]);
  const migration = {
    years_to_migrate: 1,
    months_to_migrate: 0,
    source_tables: [table],
    destination_tables: [`${table}_archive`],
    filter_columns: ["created_at"],
  };
  const migrated = await runCaptured(["publish", "--wait", "--message", JSON.stringify(migration)], env);
  expect(migrated.code, migrated.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  for (const worker of workers) worker.child.kill("SIGKILL");
  await Promise.all(workers.map((worker) => worker.exited));
  await deleteTestKeys({ prefixes: [prefix], tables: [table] });
  if (dir) await rm(dir, { recursive: true, force: true });
  await db?.drop();
});

function startWorker(): CliWorkerProcess {
  const worker = spawnCliWorker(["worker", "--drain"], env, dir);
  workers.push(worker);
  return worker;
}

async function count(name: string): Promise<number | undefined> {
  try {
    const [rows] = await db.connection.query(`SELECT COUNT(*) AS n FROM \`${name}\``);
    return Number((rows as { n: number }[])[0]?.n);
  } catch {
    return undefined;
  }
}

/** Who holds the lease of the partition's first day now. */
async function leaseHolder(redis: Redis): Promise<string | null> {
  return redis.get(`archiver:cleanup-lease:${table}:${DAYS[0]}`);
}

describe("a partition's cleanup killed with SIGKILL", () => {
  it("loses no row when killed after the exchange and again while the twin is verified; a third worker finishes", async () => {
    const cleanup = { clean_table: table, filter_column: "created_at", dry_run: false };
    const queued = await runCaptured(["publish", "--message", JSON.stringify(cleanup)], env);
    expect(queued.stdout).toContain("1 partition emptied at once");
    const redis = new Redis(testRedisUrl);
    try {
      let worker = startWorker();
      await waitFor(
        60,
        async () => ((await count(twin)) ?? 0) > 0,
        () => `no twin; stderr: ${worker.stderr()}`,
      );
      const firstHolder = await leaseHolder(redis);
      worker.child.kill("SIGKILL");
      await worker.exited;
      // Detached: the rows are in the twin, none in the live table, none lost.
      expect([await count(twin), await count(table)]).toEqual([12, 0]);

      worker = startWorker();
      // The next worker takes the days over once the dead one's lease lapses, and verifies the twin a day at a
      // time, pausing between days: killed as soon as it holds the lease, it has dropped nothing yet.
      await waitFor(
        90,
        async () => {
          const holder = await leaseHolder(redis);
          return holder !== null && holder !== firstHolder;
        },
        () => `the task never ran again; stderr: ${worker.stderr()}`,
      );
      worker.child.kill("SIGKILL");
      await worker.exited;
      expect([await count(twin), await count(table)]).toEqual([12, 0]);

      worker = startWorker();
      const ended = await Promise.race([
        worker.exited,
        new Promise<undefined>((resolve) => setTimeout(resolve, 90_000, undefined)),
      ]);
      expect(ended, `the third worker did not finish; stderr: ${worker.stderr()}`).toEqual({
        code: 0,
        signal: null,
      });
      expect([await count(twin), await count(table)]).toEqual([undefined, 0]);
      expect((await redis.smembers(`archiver:cleaned:${table}`)).sort()).toEqual(DAYS);
    } finally {
      redis.disconnect();
    }
  }, 240_000);
});
