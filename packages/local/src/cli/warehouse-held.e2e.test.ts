import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createTestDatabase,
  deleteTestKeys,
  type TestDatabase,
  testRedisUrl,
  uniqueName,
} from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliWorkerProcess, holdsFileLock, spawnCliWorker, waitFor } from "../worker/testing/cli-worker";
import { runCaptured } from "./testing/run-captured";

/**
 * The CLI beside a process that holds the DuckDB file (the worker of `pnpm
 * dev`, another command): a command that needs the warehouse waits a few
 * seconds for it, and when the holder keeps it, refuses with one line naming
 * the file and the holder instead of DuckDB's own `IO Error`.
 */
let db: TestDatabase;
let dir: string;
let path: string;
let env: Record<string, string>;
const table = uniqueName("orders");
const prefix = uniqueName("held");
const holderPrefix = uniqueName("holder");
const holders: CliWorkerProcess[] = [];

const cleanup = JSON.stringify({ clean_table: table, filter_column: "created_at" });

beforeAll(async () => {
  db = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), "warehouse-held-"));
  path = join(dir, "warehouse.duckdb");
  env = {
    MYSQL_URL: db.url,
    REDIS_URL: testRedisUrl,
    WAREHOUSE: "duckdb",
    DUCKDB_PATH: path,
    QUEUE: "local",
    LOCAL_QUEUE_PREFIX: prefix,
    LOG_LEVEL: "error",
    TASK_ATTEMPTS: "1",
  };
  await db.connection.query(
    `CREATE TABLE ${table} (id INT AUTO_INCREMENT PRIMARY KEY, created_at DATETIME NOT NULL, KEY (created_at));
     INSERT INTO ${table} (created_at) VALUES ('2020-01-01 01:00:00'), ('2020-01-02 01:00:00'), ('2020-01-02 02:00:00')`,
  );
  const migrated = await run([
    "publish",
    "--wait",
    "--message",
    JSON.stringify({
      years_to_migrate: 1,
      months_to_migrate: 0,
      source_tables: [table],
      destination_tables: [`archive.${table}`],
      filter_columns: ["created_at"],
    }),
  ]);
  expect(migrated.code, migrated.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  for (const holder of holders) {
    holder.child.kill("SIGKILL");
    await holder.exited;
  }
  await deleteTestKeys({ prefixes: [prefix, holderPrefix], tables: [table] });
  if (dir) await rm(dir, { recursive: true, force: true });
  await db?.drop();
});

const run = (argv: string[]) => runCaptured(argv, env);

/** A process that opens the DuckDB file and lets go of it after `ms` (by exiting). */
async function holdFileFor(ms: number): Promise<{ exited: Promise<unknown> }> {
  const api = createRequire(import.meta.url).resolve("@duckdb/node-api");
  const child = spawn(process.execPath, [
    "-e",
    `require(${JSON.stringify(api)}).DuckDBInstance.create(${JSON.stringify(path)})
       .then(() => { console.log("holding"); setTimeout(() => process.exit(0), ${ms}); });`,
  ]);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (data) => String(data).includes("holding") && resolve());
    child.once("exit", (code) => reject(new Error(`the holder exited with ${code} before holding`)));
  });
  return { exited };
}

describe("the CLI while another process holds the DuckDB file", () => {
  it("waits for a holder that lets go within a few seconds: a cleanup dry run and status --rebuild go through", async () => {
    let holder = await holdFileFor(1500);
    const dryRun = await run(["publish", "--message", cleanup]);
    expect(dryRun.code, dryRun.stderr).toBe(0);
    expect(dryRun.stdout).toContain(`dry run of cleanup of ${table}: 2 days verified`);
    await holder.exited;

    holder = await holdFileFor(1500);
    const rebuilt = await run(["status", "--rebuild"]);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    await holder.exited;
  }, 60_000);

  it("answers two cleanup messages published at the same moment by two processes", async () => {
    const two = [0, 1].map(() => spawnCliWorker(["publish", "--message", cleanup], env, dir));
    holders.push(...two);
    for (const publish of two) {
      expect(await publish.exited, publish.stderr()).toEqual({ code: 0, signal: null });
      expect(publish.stdout()).toContain(`dry run of cleanup of ${table}: 2 days verified`);
    }
  }, 60_000);

  it("refuses with one line naming the file and the holder while a worker keeps the file", async () => {
    const worker = spawnCliWorker(["worker"], { ...env, LOCAL_QUEUE_PREFIX: holderPrefix }, dir);
    holders.push(worker);
    await waitFor(
      30,
      () => holdsFileLock(worker.pid, path),
      () => `the worker (pid ${worker.pid}) never locked ${path}; stderr: ${worker.stderr()}`,
    );
    const expected = new RegExp(
      `^error: DuckDB file ${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is in use by another process ` +
        `\\(PID ${worker.pid}, [^)]*node\\): one process at a time may open a DuckDB file; ` +
        "stop that one \\(pnpm dev or a worker\\), or wait for it to finish, and try again\n$",
    );
    for (const argv of [
      ["publish", "--message", cleanup],
      ["status", "--rebuild"],
    ]) {
      const started = performance.now();
      const refused = await run(argv);
      expect(refused.code, argv.join(" ")).toBe(1);
      expect(refused.stderr).toMatch(expected);
      expect(refused.stderr).not.toMatch(/IO Error/);
      // It waited for the file a while before giving up.
      expect(performance.now() - started).toBeGreaterThan(4_000);
    }
  }, 90_000);
});
