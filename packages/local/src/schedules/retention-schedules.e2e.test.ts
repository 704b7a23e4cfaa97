import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { loadConfig } from "@table-archiver/core/config";
import { createDuckDbWarehouse } from "@table-archiver/core/duckdb";
import { testRedisUrl, uniqueName } from "@table-archiver/core/testing";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { type CliSandbox, openCliSandbox } from "../cli/testing/cli-sandbox";
import { type CliWorkerProcess, spawnCliWorker, waitFor } from "../worker/testing/cli-worker";
import { SCHEDULES_QUEUE } from "./policy-schedules";

/**
 * ARCHIVER_POLICIES as users run it: `archiver worker` reads the file, keeps
 * one BullMQ scheduler per policy and mode in the policy's time zone, removes
 * those the file no longer declares, refuses a broken file before touching
 * Redis, and publishes a scheduled run's message to the entry function.
 */
let sandbox: CliSandbox;
let schedules: Queue;
let redis: Redis;
let worker: CliWorkerProcess | undefined;
const orders = uniqueName("orders");
const events = uniqueName("events");

const ordersPolicy = {
  source_table: orders,
  destination_table: `${orders}_archive`,
  filter_column: "created_at",
  years_to_migrate: 1,
  months_to_migrate: 0,
  migrate_schedule: "* * * * *",
  cleanup_schedule: "* * * * *",
  time_zone: "Europe/Paris",
  cleanup_window: "22:00-05:00",
  max_rows_per_second: 500,
};
const eventsPolicy = {
  source_table: events,
  destination_table: `${events}_archive`,
  filter_column: "created_at",
  years_to_migrate: 2,
  months_to_migrate: 0,
  // 01:00 in Tokyo is 16:00 UTC the day before: a next run read in UTC would land nine hours off.
  migrate_schedule: "0 1 * * *",
  time_zone: "Asia/Tokyo",
  cleanup: "off",
};

async function policyFile(name: string, content: unknown): Promise<string> {
  const path = join(sandbox.dir, name);
  await writeFile(path, typeof content === "string" ? content : stringify(content));
  return path;
}

const schedulers = async () =>
  (await schedules.getJobSchedulers(0, -1))
    .map(({ key, pattern, tz }) => ({ key, pattern, tz }))
    .sort((a, b) => a.key.localeCompare(b.key));

beforeAll(async () => {
  sandbox = await openCliSandbox("schedules");
  await sandbox.db.connection.query(
    `CREATE TABLE ${orders} (id INT AUTO_INCREMENT PRIMARY KEY, created_at DATETIME NOT NULL, KEY (created_at));
     INSERT INTO ${orders} (created_at) VALUES ('2020-01-01 01:00:00'), ('2020-01-02 01:00:00'), ('2020-01-02 02:00:00')`,
  );
  schedules = new Queue(SCHEDULES_QUEUE, {
    connection: { host: new URL(testRedisUrl).hostname, port: Number(new URL(testRedisUrl).port || 6379) },
    prefix: sandbox.env.LOCAL_QUEUE_PREFIX,
  });
  redis = new Redis(testRedisUrl);
});

afterAll(async () => {
  worker?.child.kill("SIGKILL");
  await schedules?.close();
  await redis?.quit();
  await sandbox?.close([orders, events]);
});

describe("ARCHIVER_POLICIES", () => {
  it("a worker start upserts one scheduler per policy and mode, in the policy's time zone", async () => {
    const file = await policyFile("policies.yaml", { retention: [ordersPolicy, eventsPolicy] });
    const run = await sandbox.run(["worker", "--drain"], { ARCHIVER_POLICIES: file });

    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`schedules: ${orders}|migration, ${orders}|cleanup, ${events}|migration`);
    expect(await schedulers()).toEqual([
      { key: `${events}|migration`, pattern: "0 1 * * *", tz: "Asia/Tokyo" },
      { key: `${orders}|cleanup`, pattern: "* * * * *", tz: "Europe/Paris" },
      { key: `${orders}|migration`, pattern: "* * * * *", tz: "Europe/Paris" },
    ]);
  });

  it("refuses a broken policy with exit 2, naming the table and the field, and changes no schedule", async () => {
    const before = await schedulers();
    const file = await policyFile(
      "broken.json",
      JSON.stringify([{ ...ordersPolicy, time_zone: "Mars/Olympus" }]),
    );
    const run = await sandbox.run(["worker", "--drain"], { ARCHIVER_POLICIES: file });

    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`retention "${orders}": time_zone: must be an IANA time zone`);
    expect(run.stdout).not.toContain("schedules:");
    expect(await schedulers()).toEqual(before);
  });

  it("archiver status shows each policy with its next runs, read in its time zone", async () => {
    const file = await policyFile("policies.yaml", { retention: [ordersPolicy, eventsPolicy] });
    const before = Date.now();
    const json = await sandbox.run(["status", "--json"], { ARCHIVER_POLICIES: file });
    expect(json.code).toBe(0);
    const { policies } = JSON.parse(json.stdout) as {
      policies: { table: string; schedules: { mode: string; next: string }[]; lastRun: unknown }[];
    };
    const ordersNext = new Date(policies.find((p) => p.table === orders)?.schedules[0]?.next ?? "");
    // Every minute: the next whole minute after now.
    expect(ordersNext.getTime() % 60_000).toBe(0);
    expect(ordersNext.getTime() - before).toBeGreaterThan(0);
    expect(ordersNext.getTime() - before).toBeLessThanOrEqual(60_000);
    const eventsStatus = policies.find((p) => p.table === events);
    expect(eventsStatus?.schedules.map((s) => s.mode)).toEqual(["migration"]);
    expect(eventsStatus?.schedules[0]?.next).toMatch(/T16:00:00\.000Z$/);
    expect(eventsStatus?.lastRun).toBeNull();

    const text = await sandbox.run(["status"], { ARCHIVER_POLICIES: file });
    expect(text.stdout).toMatch(
      new RegExp(
        `${events}: policy in Asia/Tokyo: migration "0 1 \\* \\* \\*" next \\d{4}-\\d\\d-\\d\\d 01:00; cleanup off; last run: no run recorded`,
      ),
    );
    expect(text.stdout).toContain(`cleanup (dry_run) "* * * * *" next `);
    expect(text.stdout).toContain("window 22:00-05:00; cap 500 rows/s");

    // A warehouse never written to has no run to show: status neither fails nor creates its file.
    const none = join(sandbox.dir, "never-opened.duckdb");
    const fresh = await sandbox.run(["status"], { ARCHIVER_POLICIES: file, DUCKDB_PATH: none });
    expect(fresh.stdout).toContain(`${events}: policy in Asia/Tokyo: `);
    expect(fresh.stdout).toMatch(/last run: no run recorded\n/);
    expect(existsSync(none)).toBe(false);
  });

  it("a scheduled run publishes the policy's migration, with its due minute as publish time", async () => {
    const file = await policyFile("policies.yaml", { retention: [ordersPolicy, eventsPolicy] });
    worker = spawnCliWorker(
      ["worker"],
      { ...sandbox.env, ARCHIVER_POLICIES: file, LOG_LEVEL: "info" },
      sandbox.dir,
    );
    const schedulerJob = async () =>
      (await schedules.getDelayed()).find((job) => job.id?.startsWith(`repeat:${orders}|migration:`));
    await waitFor(
      30,
      async () => worker?.stdout().includes("retention schedules set") === true,
      () => worker?.stderr() ?? "",
    );
    const job = await schedulerJob();
    expect(job).toBeDefined();
    // Due at the next minute; promoted so the test need not wait for it. It keeps its due time.
    const due = new Date(Number(job?.id?.split(":").at(-1)));
    await job?.promote();

    await waitFor(
      60,
      async () => (await redis.scard(`mig_${orders}`)) === 2,
      () => `mig_${orders} holds ${worker?.stdout()}`,
    );
    expect((await redis.smembers(`mig_${orders}`)).sort()).toEqual(["2020-01-01", "2020-01-02"]);
    const published = worker
      .stdout()
      .split("\n")
      .filter((line) => line.includes(`scheduled migration of ${orders}`))
      .map((line) => JSON.parse(line) as { scheduledFor: string });
    expect(published[0]?.scheduledFor).toBe(due.toISOString());

    // The running worker holds the DuckDB file: status says the history was not read, and still answers.
    const status = await sandbox.run(["status"], { ARCHIVER_POLICIES: file });
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(
      new RegExp(`${orders}: policy in Europe/Paris: .*; last run: not read \\(`),
    );

    worker.child.kill("SIGTERM");
    expect((await worker.exited).code).toBe(0);
    worker = undefined;

    // Stopped, it lets go of the file: the scheduled run is the table's last run, read back from the warehouse.
    const after = await sandbox.run(["status"], { ARCHIVER_POLICIES: file });
    expect(after.stdout).toMatch(
      new RegExp(
        `${orders}: policy in Europe/Paris: .*; last run: migration [\\d-]+ [\\d:]+: succeeded: 2 days copied, 3 rows\n`,
      ),
    );
  });

  it("archiver status shows a policy's last run, the newest the warehouse's run history holds", async () => {
    const config = loadConfig(sandbox.env);
    if (config.warehouse.kind !== "duckdb") throw new Error("the sandbox's warehouse is DuckDB");
    const warehouse = await createDuckDbWarehouse(config.warehouse);
    const run = (startedAt: string, copied: number) => ({
      id: `run-${startedAt}`,
      table: events,
      mode: "migration" as const,
      dataset: "hist",
      policy: events,
      startedAt,
      endedAt: startedAt,
      queued: copied + 1,
      copied,
      cleaned: 0,
      refused: 1,
      deferred: 0,
      failed: 0,
      rows: copied * 600,
      waitedMsByReason: {},
      result: "partial" as const,
    });
    try {
      // A migration's row is in its destination's dataset, here not the default one.
      await warehouse.recordRun({ dataset: "hist" }, run("2026-01-10T16:00:00.000Z", 2));
      await warehouse.recordRun({ dataset: "hist" }, run("2026-01-09T16:00:00.000Z", 5));
    } finally {
      await warehouse.close();
    }
    const file = await policyFile("history.yaml", [
      { ...eventsPolicy, destination_table: `hist.${events}_archive` },
    ]);
    const text = await sandbox.run(["status"], { ARCHIVER_POLICIES: file });

    expect(text.code).toBe(0);
    // 16:00 UTC is 01:00 the next day in Tokyo.
    expect(text.stdout).toContain(
      "last run: migration 2026-01-11 01:00: partial: 2 days copied, 1 refused, 1,200 rows",
    );
  });

  it("the next start removes the schedulers of a policy, or a mode, the file no longer declares", async () => {
    const file = await policyFile("fewer.yaml", [
      { ...ordersPolicy, cleanup: "off", cleanup_schedule: undefined },
    ]);
    const run = await sandbox.run(["worker", "--drain"], { ARCHIVER_POLICIES: file });

    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`removed: ${events}|migration, ${orders}|cleanup`);
    expect(await schedulers()).toEqual([
      { key: `${orders}|migration`, pattern: "* * * * *", tz: "Europe/Paris" },
    ]);
  });
});
