import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { testRedisUrl, uniqueName } from "@table-archiver/core/testing";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { type CliSandbox, openCliSandbox } from "../cli/testing/cli-sandbox";
import { type CliWorkerProcess, spawnCliWorker, waitFor } from "../worker/testing/cli-worker";
import { SCHEDULES_QUEUE } from "./policy-schedules";

/**
 * ARCHIVER_POLICIES left to run alone: `archiver worker` with a policy file
 * and nothing published. Each policy's scheduled migration copies its old
 * days; then its scheduled cleanup deletes them (`cleanup: delete`) or only
 * says what it would delete (the default, `dry_run`). Every run lands in the
 * run history. The schedulers' delayed jobs are promoted rather than waited for.
 */
let sandbox: CliSandbox;
let schedules: Queue;
let tasks: Queue;
let redis: Redis;
let worker: CliWorkerProcess | undefined;
const deleting = uniqueName("orders");
const dryRun = uniqueName("events");

const DELETING_DAYS = ["2024-01-01", "2024-01-02", "2024-01-03"];
const DRY_RUN_DAYS = ["2024-02-01", "2024-02-02"];
/** Time the test wants before its schedulers' first minute comes due: a few times what it takes. */
const MINUTE_LEFT_MS = 15_000;

const policy = (table: string, more: Record<string, unknown>) => ({
  source_table: table,
  destination_table: `${table}_archive`,
  filter_column: "created_at",
  // Days older than a year: every 2024 day, never the row of yesterday.
  years_to_migrate: 1,
  months_to_migrate: 0,
  migrate_schedule: "* * * * *",
  cleanup_schedule: "* * * * *",
  time_zone: "UTC",
  ...more,
});

const rowsOf = async (table: string) =>
  (
    (await sandbox.db.connection.query(
      `SELECT id, DATE_FORMAT(created_at, '%Y-%m-%d %H:%i:%s') AS at FROM ${table} ORDER BY id`,
    )) as unknown as [{ id: number; at: string }[]]
  )[0];

type LogEntry = Record<string, unknown> & { message: string };

/** The worker's JSON log lines, those whose message is `message`. */
const logged = (message: string): LogEntry[] =>
  (worker?.stdout() ?? "")
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .map((entry) => ({ ...entry, message: String(entry.message ?? entry.msg) }))
    .filter((entry) => entry.message === message);

const seen = () => `stdout:\n${worker?.stdout()}\nstderr:\n${worker?.stderr()}`;

/** Promotes the scheduler's delayed job of `table` and `mode`, due at the next minute. */
async function promote(table: string, mode: "migration" | "cleanup"): Promise<void> {
  const job = (await schedules.getDelayed()).find((j) => j.id?.startsWith(`repeat:${table}|${mode}:`));
  if (!job) throw new Error(`no delayed ${mode} job of ${table}`);
  await job.promote();
}

beforeAll(async () => {
  sandbox = await openCliSandbox("unattended");
  const rows = (days: string[]) => days.flatMap((day) => [[`${day} 01:00:00`], [`${day} 13:30:00`]]);
  for (const table of [deleting, dryRun]) {
    await sandbox.db.connection.query(
      `CREATE TABLE ${table} (id INT AUTO_INCREMENT PRIMARY KEY, created_at DATETIME NOT NULL, KEY (created_at))`,
    );
  }
  await sandbox.db.connection.query(`INSERT INTO ${deleting} (created_at) VALUES ?`, [rows(DELETING_DAYS)]);
  // A recent row: outside what the policy migrates, it is neither copied nor deleted.
  await sandbox.db.connection.query(
    `INSERT INTO ${deleting} (created_at) VALUES (DATE_SUB(CURDATE(), INTERVAL 1 DAY))`,
  );
  await sandbox.db.connection.query(`INSERT INTO ${dryRun} (created_at) VALUES ?`, [rows(DRY_RUN_DAYS)]);
  const connection = {
    host: new URL(testRedisUrl).hostname,
    port: Number(new URL(testRedisUrl).port || 6379),
  };
  schedules = new Queue(SCHEDULES_QUEUE, { connection, prefix: sandbox.env.LOCAL_QUEUE_PREFIX });
  tasks = new Queue("jobs-migration", { connection, prefix: sandbox.env.LOCAL_QUEUE_PREFIX });
  redis = new Redis(testRedisUrl);
});

afterAll(async () => {
  worker?.child.kill("SIGKILL");
  await schedules?.close();
  await tasks?.close();
  await redis?.quit();
  await sandbox?.close([deleting, dryRun]);
});

describe("an unattended worker", () => {
  it("migrates both policies' days, deletes them for cleanup: delete and only reports them for dry_run", async () => {
    const before = { deleting: await rowsOf(deleting), dryRun: await rowsOf(dryRun) };
    // The schedulers' first jobs are due at the next whole minute; a job that came due on its own
    // while the test promotes the others would be a second run. The whole test takes a few
    // seconds: started late in a minute, it waits for the next one.
    const toNextMinute = 60_000 - (Date.now() % 60_000);
    if (toNextMinute < MINUTE_LEFT_MS)
      await new Promise((resolve) => setTimeout(resolve, toNextMinute + 200));
    const due = Math.ceil(Date.now() / 60_000) * 60_000;
    const file = join(sandbox.dir, "policies.yaml");
    await writeFile(
      file,
      stringify({ retention: [policy(deleting, { cleanup: "delete" }), policy(dryRun, {})] }),
    );
    worker = spawnCliWorker(
      ["worker"],
      { ...sandbox.env, ARCHIVER_POLICIES: file, LOG_LEVEL: "info" },
      sandbox.dir,
    );
    await waitFor(20, () => worker?.stdout().includes("retention schedules set") === true, seen);

    await promote(deleting, "migration");
    await promote(dryRun, "migration");
    await waitFor(
      20,
      async () =>
        (await redis.scard(`mig_${deleting}`)) === DELETING_DAYS.length &&
        (await redis.scard(`mig_${dryRun}`)) === DRY_RUN_DAYS.length,
      seen,
    );
    expect((await redis.smembers(`mig_${deleting}`)).sort()).toEqual(DELETING_DAYS);
    expect((await redis.smembers(`mig_${dryRun}`)).sort()).toEqual(DRY_RUN_DAYS);
    await waitFor(20, () => logged("run ended").length === 2, seen);

    await promote(deleting, "cleanup");
    await promote(dryRun, "cleanup");
    await waitFor(
      20,
      async () => {
        if (logged("run ended").length < 4) return false;
        const counts = await tasks.getJobCounts("waiting", "active", "delayed", "prioritized");
        return Object.values(counts).every((n) => n === 0);
      },
      seen,
    );

    // cleanup: delete — the migrated days' rows are gone, exactly; yesterday's row stays.
    expect(await rowsOf(deleting)).toEqual(before.deleting.filter((row) => !row.at.startsWith("2024-")));
    expect((await redis.smembers(`archiver:cleaned:${deleting}`)).sort()).toEqual(DELETING_DAYS);
    // dry_run — every row stays, no day is recorded cleaned, and the run said what it would delete.
    expect(await rowsOf(dryRun)).toEqual(before.dryRun);
    expect(await redis.smembers(`archiver:cleaned:${dryRun}`)).toEqual([]);
    const said = logged("cleanup dry run: nothing was deleted");
    expect(said).toEqual([
      expect.objectContaining({
        table: dryRun,
        dryRun: true,
        verified: DRY_RUN_DAYS.length,
        refused: 0,
        rowsToDelete: 2 * DRY_RUN_DAYS.length,
      }),
    ]);
    expect(worker.stderr()).toBe("");

    // Every run was a promoted job: none came due on its own before the worker stopped.
    expect(Date.now()).toBeLessThan(due);
    // Stopped, the worker lets go of the DuckDB file that holds the run history.
    worker.child.kill("SIGTERM");
    expect((await worker.exited).code).toBe(0);
    worker = undefined;

    const listed = await sandbox.run(["runs", "--json"]);
    expect(listed.code).toBe(0);
    const runs = (JSON.parse(listed.stdout) as { table: string; mode: string }[]).sort(
      (a, b) => a.table.localeCompare(b.table) || a.mode.localeCompare(b.mode),
    );
    const common = { result: "succeeded", refused: 0, deferred: 0, failed: 0 };
    expect(runs).toEqual(
      [
        {
          table: deleting,
          mode: "cleanup",
          policy: deleting,
          dry_run: false,
          ...common,
          queued: DELETING_DAYS.length,
          cleaned: DELETING_DAYS.length,
          rows: 2 * DELETING_DAYS.length,
        },
        {
          table: deleting,
          mode: "migration",
          policy: deleting,
          ...common,
          queued: DELETING_DAYS.length,
          copied: DELETING_DAYS.length,
          rows: 2 * DELETING_DAYS.length,
        },
        {
          table: dryRun,
          mode: "cleanup",
          policy: dryRun,
          dry_run: true,
          ...common,
          queued: 0,
          cleaned: DRY_RUN_DAYS.length,
          rows: 0,
        },
        {
          table: dryRun,
          mode: "migration",
          policy: dryRun,
          ...common,
          queued: DRY_RUN_DAYS.length,
          copied: DRY_RUN_DAYS.length,
          rows: 2 * DRY_RUN_DAYS.length,
        },
      ]
        .sort((a, b) => a.table.localeCompare(b.table) || a.mode.localeCompare(b.mode))
        .map((run) => expect.objectContaining(run)),
    );
  }, 120_000);
});
