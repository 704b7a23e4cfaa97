import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  createTestDatabase,
  deleteTestKeys,
  type TestDatabase,
  testRedisUrl,
  uniqueName,
} from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoOwnerKey } from "./reset-demo-state";

/**
 * `pnpm demo` and then the README's next commands, each as a process of its
 * own in a working directory whose `.env` is docs/local-deployment.md's setup
 * for `pnpm dev` (DEBUG_UIDS without "demo"; its placeholder secret replaced
 * by one of the reader's own, as the page asks). The demo's database, table and
 * queue are this file's own (ARCHIVER_DEMO_*), and `.env` points the CLI at
 * them, so the demo prints the README's commands with nothing in front.
 */
const root = fileURLToPath(new URL("../../../../", import.meta.url));
const tsx = join(root, "node_modules/.bin/tsx");
const LOCAL_STACK_ENV = [
  "APP_ENV=debug",
  "DEBUG_UIDS=alice",
  `LOCAL_TOKEN_SECRET=${"0f".repeat(32)}`,
  "PORT=3999",
];
let db: TestDatabase;
const tables: string[] = [];
const prefixes: string[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase("demo");
});

afterAll(async () => {
  await deleteTestKeys({ prefixes, tables });
  const { Redis } = await import("ioredis");
  const redis = new Redis(testRedisUrl);
  if (tables.length > 0) await redis.del(...tables.map(demoOwnerKey));
  redis.disconnect();
  await db?.drop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * A working directory with this `.env`, where the demo runs on a table and
 * queue of its own; `sh` runs a command there, `pnpm archiver` being the
 * CLI's entry point, with nothing of the test's own environment: the
 * processes read their settings from `.env`, as a user's would.
 */
async function workspace(dotenv: (names: { table: string; queuePrefix: string }) => string[], days: number) {
  const table = uniqueName("orders");
  const queuePrefix = uniqueName("demo");
  tables.push(table);
  prefixes.push(queuePrefix);
  const dir = await mkdtemp(join(tmpdir(), "demo-e2e-"));
  dirs.push(dir);
  await writeFile(join(dir, ".env"), [...dotenv({ table, queuePrefix }), ""].join("\n"));
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? dir,
    ARCHIVER_DEMO_DATABASE: db.name,
    ARCHIVER_DEMO_TABLE: table,
    ARCHIVER_DEMO_QUEUE_PREFIX: queuePrefix,
    ARCHIVER_DEMO_DAYS: String(days),
    ARCHIVER_DEMO_ORDERS_PER_DAY: "100",
  };
  const cli = `'${tsx}' '${join(root, "packages/local/src/cli/main.ts")}'`;
  const sh = (command: string): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        "sh",
        ["-c", command.replaceAll("pnpm archiver", cli)],
        { cwd: dir, env, maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) => {
          resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
        },
      );
    });
  return {
    table,
    queuePrefix,
    sh,
    demo: () => sh(`'${tsx}' '${join(root, "packages/local/src/demo/demo.ts")}'`),
  };
}

/** The demo's summary and the commands it printed to carry on. */
function demoOutcome(run: Run) {
  const summary = /summary: cutoff (\S+); (\d+) days migrated/.exec(run.stdout);
  return {
    cutoff: summary?.[1] ?? "",
    days: Number(summary?.[2] ?? 0),
    commands: run.stdout
      .split("\n")
      .filter((line) => line.startsWith("  ") && line.includes("pnpm archiver"))
      .map((line) => line.trim()),
  };
}

/** The JSON log lines a run wrote (the archiver logs one per task and per message), on either stream. */
function logs(run: Run): { message: string; [field: string]: unknown }[] {
  return `${run.stdout}\n${run.stderr}`
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line));
}

async function count(table: string, where: string): Promise<number> {
  const [[row]] = (await db.connection.query(
    `SELECT COUNT(*) AS n FROM \`${table}\` WHERE ${where}`,
  )) as unknown as [[{ n: number | string }]];
  return Number(row.n);
}

describe("pnpm demo, then the README's commands", () => {
  // .env as docs/local-deployment.md sets it up, pointing the CLI at the demo's database and queue.
  let w: Awaited<ReturnType<typeof workspace>>;
  let table: string;
  let commands: string[];
  let cutoff: string;
  let days: number;

  beforeAll(async () => {
    w = await workspace(
      ({ queuePrefix }) => [
        `MYSQL_URL=${db.url}`,
        `REDIS_URL=${testRedisUrl}`,
        `LOCAL_QUEUE_PREFIX=${queuePrefix}`,
        ...LOCAL_STACK_ENV,
      ],
      730,
    );
    table = w.table;
  });

  it("the demo exits 0 with the local stack's .env, and prints the README's commands", async () => {
    const demo = await w.demo();
    expect(demo.stderr).toBe("");
    expect(demo.code).toBe(0);
    ({ cutoff, days, commands } = demoOutcome(demo));
    expect(days).toBeGreaterThan(300);
    expect(demo.stdout).toMatch(/MySQL rows before the cutoff (\d+); warehouse rows \1; equal/);
    expect(demo.stdout).toContain(`answered the ${days} members of mig_${table}`);
    const clean = `{"clean_table":"${table}","filter_column":"created_at"`;
    expect(commands).toEqual([
      "pnpm archiver status",
      `pnpm archiver publish --message '${clean}}'`,
      `pnpm archiver publish --wait --message '${clean},"dry_run":false}'`,
    ]);
  });

  it("status lists the table with its migrated days and an empty queue", async () => {
    const status = await w.sh(commands[0] ?? "");
    expect(status.code).toBe(0);
    expect(status.stdout).toContain("queue jobs-migration: 0 tasks (finished)");
    expect(status.stdout).toMatch(new RegExp(`^${table}: ${days} (days migrated|migrated days) \\(`, "m"));
  });

  it("the dry run verifies every migrated day against the demo's warehouse, refuses none and deletes nothing", async () => {
    const before = await count(table, "TRUE");
    const dry = await w.sh(commands[1] ?? "");
    expect(dry.code).toBe(0);
    expect(dry.stderr).not.toMatch(/refused/);
    const lines = logs(dry);
    expect(lines.find((line) => line.message === "cleanup dry run: nothing was deleted")).toMatchObject({
      table,
      dryRun: true,
      migratedDays: days,
      verified: days,
      refused: 0,
      enqueued: 0,
    });
    expect(lines.filter((line) => line.message === "cleanup dry run: day verified")).toHaveLength(days);
    expect(await count(table, "TRUE")).toBe(before);
  });

  it("the cleanup deletes exactly the migrated rows and exits 0", async () => {
    const old = await count(table, `created_at < '${cutoff}'`);
    const kept = await count(table, `created_at >= '${cutoff}'`);
    expect(old).toBeGreaterThan(0);
    const cleanup = await w.sh(commands[2] ?? "");
    expect(cleanup.stderr).not.toMatch(/refused|failed:/);
    expect(cleanup.code).toBe(0);
    const cleaned = logs(cleanup).filter((line) => line.message === "cleaned day");
    expect(cleaned).toHaveLength(days);
    expect(cleaned.reduce((sum, line) => sum + Number(line.rowsDeleted), 0)).toBe(old);
    expect(await count(table, `created_at < '${cutoff}'`)).toBe(0);
    expect(await count(table, `created_at >= '${cutoff}'`)).toBe(kept);
  });

  it("a second run starts afresh: every day is copied again, none taken from the first run's durable record", async () => {
    const again = await w.demo();
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/MySQL rows before the cutoff (\d+); warehouse rows \1; equal/);
    expect(again.stdout).not.toMatch(/durable record/);
  });
});

describe("pnpm demo with a .env that points the CLI elsewhere", () => {
  it("prints each command with the variables that bring the CLI to the demo's data, and they work", async () => {
    const w = await workspace(
      ({ table }) => [
        `MYSQL_URL=${db.url}_elsewhere`,
        `REDIS_URL=${testRedisUrl}`,
        `LOCAL_QUEUE_PREFIX=${table}_elsewhere`,
        "DUCKDB_PATH=.data/elsewhere.duckdb",
        ...LOCAL_STACK_ENV,
      ],
      400,
    );
    const demo = await w.demo();
    expect(demo.stderr).toBe("");
    expect(demo.code).toBe(0);
    const { days, commands } = demoOutcome(demo);
    expect(days).toBeGreaterThan(0);
    const front = `MYSQL_URL=${db.url} DUCKDB_PATH=.data/warehouse.duckdb LOCAL_QUEUE_PREFIX=${w.queuePrefix} `;
    expect(commands).toHaveLength(3);
    for (const command of commands) expect(command.startsWith(`${front}pnpm archiver `)).toBe(true);

    const status = await w.sh(commands[0] ?? "");
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`^${w.table}: ${days} (days migrated|migrated days) \\(`, "m"));
    const dry = await w.sh(commands[1] ?? "");
    expect(dry.code).toBe(0);
    expect(logs(dry).find((line) => line.message === "cleanup dry run: nothing was deleted")).toMatchObject({
      migratedDays: days,
      verified: days,
      refused: 0,
    });
  });
});
