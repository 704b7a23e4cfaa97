import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  createTestDatabase,
  deleteTestKeys,
  type TestDatabase,
  testRedisUrl,
  uniqueName,
} from "@table-archiver/core/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * `pnpm archiver` as a user runs it: bin/archiver.mjs in a process of its own,
 * running the bundle (built first when stale), with its output in pipes.
 */
const launcher = fileURLToPath(new URL("../../bin/archiver.mjs", import.meta.url));
const run = promisify(execFile);

let db: TestDatabase;
let dir: string;
let env: Record<string, string>;
const table = uniqueName("orders");
const crowd = uniqueName("crowd");

beforeAll(async () => {
  // Builds the bundle if a source is newer, so the tests below see no build line on stderr.
  await run(process.execPath, [launcher, "--help"], { timeout: 120_000 });
  db = await createTestDatabase();
  dir = await mkdtemp(path.join(tmpdir(), "built-cli-"));
  env = {
    PATH: process.env.PATH ?? "",
    MYSQL_URL: db.url,
    REDIS_URL: testRedisUrl,
    DUCKDB_PATH: path.join(dir, "w.duckdb"),
    LOCAL_QUEUE_PREFIX: uniqueName("built"),
    TASK_ATTEMPTS: "1",
    CLEANUP_CONCURRENCY: "1",
  };
  await db.connection.query(
    `CREATE TABLE ${table} (id INT AUTO_INCREMENT PRIMARY KEY, created_at DATETIME NOT NULL, KEY (created_at))`,
  );
  await db.connection.query(`INSERT INTO ${table} (created_at) VALUES ?`, [
    Array.from({ length: 6 }, (_, i) => [`2020-01-0${1 + (i % 3)} 10:00:00`]),
  ]);
}, 180_000);

afterAll(async () => {
  await db?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
  if (env) await deleteTestKeys({ prefixes: [env.LOCAL_QUEUE_PREFIX as string], tables: [table] });
  // The crowd of tables the closed-pipe test makes.
  const redis = new Redis(testRedisUrl);
  try {
    for await (const keys of redis.scanStream({ match: `mig_${crowd}_*`, count: 1000 }) as AsyncIterable<
      string[]
    >) {
      if (keys.length > 0) await redis.del(...keys);
    }
  } finally {
    redis.disconnect();
  }
});

/** Runs the CLI (cwd: a scratch directory, so no .env applies) and collects its output. */
async function archiver(args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [launcher, ...args], { env, cwd: dir });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

describe("the built CLI", () => {
  it("copies, cleans and reports through the bundle", async () => {
    const migration = JSON.stringify({
      years_to_migrate: 1,
      months_to_migrate: 0,
      source_tables: [table],
      destination_tables: [`${table}_archive`],
      filter_columns: ["created_at"],
    });
    const copied = await archiver(["publish", "--wait", "--message", migration]);
    expect(copied).toMatchObject({ code: 0, stderr: "" });
    expect(copied.stdout).toContain(
      "queue jobs-migration is empty: 3 days copied (6 rows); 0 failed for good\n",
    );
    // Not a terminal: the log is JSON lines, one per copied day.
    expect(copied.stdout.split("\n").filter((line) => line.includes('"message":"copied day"'))).toHaveLength(
      3,
    );

    const cleanup = JSON.stringify({ clean_table: table, filter_column: "created_at", dry_run: false });
    const cleaned = await archiver(["publish", "--wait", "--message", cleanup]);
    expect(cleaned).toMatchObject({ code: 0, stderr: "" });
    expect(cleaned.stdout).toContain(
      `accepted: cleanup of ${table}: 3 days queued, 0 already queued, 0 refused\n`,
    );
    expect(cleaned.stdout).toContain("3 days cleaned (6 rows deleted)");

    const status = await archiver(["status", "--json"]);
    expect(JSON.parse(status.stdout).tables).toContainEqual({
      table,
      migratedDays: 3,
      firstDay: "2020-01-01",
      lastDay: "2020-01-03",
      cleanedDays: 3,
    });
  });

  it("prints a rejected message once: one line on stderr, nothing on stdout", async () => {
    const result = await archiver([
      "publish",
      "--message",
      JSON.stringify({ clean_tabel: table, filter_column: "c" }),
    ]);
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr: 'error: clean_tabel: unknown field; did you mean "clean_table"?\n',
    });
  });

  it("ends quietly with exit 0 when the reader of its output goes away", async () => {
    // Enough tables that status writes far more than a pipe holds: a write fails once the reader has gone.
    const redis = new Redis(testRedisUrl);
    try {
      const pipeline = redis.pipeline();
      for (let i = 0; i < 2000; i++)
        pipeline.sadd(`mig_${crowd}_${String(i).padStart(4, "0")}`, "2020-01-01");
      await pipeline.exec();
    } finally {
      redis.disconnect();
    }
    const child = spawn(process.execPath, [launcher, "status"], {
      env,
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk);
    });
    // `| head -1`: read the first line, then close the pipe.
    const first = await new Promise<string>((resolve) => {
      child.stdout.once("data", (chunk) => {
        child.stdout.destroy();
        resolve(String(chunk).split("\n")[0] ?? "");
      });
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", (exit) => resolve(exit)));
    expect(first).toMatch(/^queue jobs-migration: /);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  });
});
