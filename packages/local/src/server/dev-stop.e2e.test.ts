import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
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
import { holdsFileLock, waitFor } from "../worker/testing/cli-worker";

/**
 * `pnpm dev` stopped by a signal to its PID alone (as a service manager or
 * `kill <pid>` sends it): the whole stack stops, children included, so the port
 * and the DuckDB file are free afterwards.
 */
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

let db: TestDatabase;
let dir: string;
const prefix = uniqueName("devstop");
const left: number[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), "dev-stop-"));
});

afterAll(async () => {
  for (const pid of left) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  await deleteTestKeys({ prefixes: [prefix], tables: [] });
  if (dir) await rm(dir, { recursive: true, force: true });
  await db?.drop();
});

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether something can listen on `port` now. */
async function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** Every living process below `root` (Linux: /proc), each with its parent. */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ")".
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (state === "Z") continue;
    const list = children.get(Number(ppid)) ?? [];
    list.push(Number(entry));
    children.set(Number(ppid), list);
  }
  const found: number[] = [];
  const visit = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      visit(child);
    }
  };
  visit(root);
  return found;
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

describe("stopping pnpm dev", () => {
  it.each(["SIGTERM", "SIGINT"] as const)(
    "%s to the pnpm PID stops the whole stack: no child left, the port and the DuckDB file free",
    async (signal) => {
      const port = await freePort();
      const path = join(dir, `${signal}.duckdb`);
      const pnpm = spawn("pnpm", ["run", "--silent", "dev"], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "",
          MYSQL_URL: db.url,
          REDIS_URL: testRedisUrl,
          WAREHOUSE: "duckdb",
          DUCKDB_PATH: path,
          QUEUE: "local",
          LOCAL_QUEUE_PREFIX: prefix,
          PORT: String(port),
          LOG_LEVEL: "error",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const out: string[] = [];
      pnpm.stdout.on("data", (chunk) => out.push(String(chunk)));
      pnpm.stderr.on("data", (chunk) => out.push(String(chunk)));
      const exited = new Promise((resolve) => pnpm.once("exit", resolve));
      const pid = pnpm.pid as number;

      await waitFor(
        60,
        () => out.join("").includes("queue worker: working jobs-migration"),
        () => `pnpm dev never listed its worker: ${out.join("")}`,
      );
      const stack = descendants(pid);
      left.push(...stack);
      expect(stack.length).toBeGreaterThan(0);
      expect(await portIsFree(port)).toBe(false);
      await waitFor(
        10,
        () => stack.some((child) => holdsFileLock(child, path)),
        () => `no process of the stack holds ${path}`,
      );

      pnpm.kill(signal);
      await exited;
      await waitFor(
        20,
        () => stack.every((child) => !alive(child)),
        () => `still running after ${signal} to ${pid}: ${stack.filter(alive).join(", ")}`,
      );
      expect(await portIsFree(port)).toBe(true);
      expect(stack.some((child) => holdsFileLock(child, path))).toBe(false);
    },
    90_000,
  );
});

describe("pnpm dev that cannot start", () => {
  /** dev.ts as `pnpm dev` runs it, with only `env` (no `.env` is read from the temp folder). */
  function startDev(env: Record<string, string>) {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(ROOT, "packages/local/src/server/dev.ts")],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LOG_LEVEL: "error", ...env },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const err: string[] = [];
    child.stderr.on("data", (chunk) => err.push(String(chunk)));
    return new Promise<{ code: number | null; stderr: string }>((resolve) =>
      child.once("exit", (code) => resolve({ code, stderr: err.join("") })),
    );
  }

  it("says why in one error: line, without a stack trace", async () => {
    expect(await startDev({ PORT: "abc", DUCKDB_PATH: join(dir, "bad-port.duckdb") })).toEqual({
      code: 2,
      stderr: expect.stringMatching(/^error: invalid configuration: PORT: [^\n]*\n$/),
    });

    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as { port: number };
    try {
      const result = await startDev({
        PORT: String(port),
        MYSQL_URL: db.url,
        REDIS_URL: testRedisUrl,
        DUCKDB_PATH: join(dir, "taken.duckdb"),
        LOCAL_QUEUE_PREFIX: prefix,
      });
      expect(result).toEqual({
        code: 1,
        stderr: `error: listen EADDRINUSE: address already in use 127.0.0.1:${port}\n`,
      });
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  }, 60_000);

  it("refuses a broken ARCHIVER_POLICIES file with exit 2, naming the table and field, before it listens", async () => {
    const policies = join(dir, "broken-policies.yaml");
    await writeFile(
      policies,
      "- source_table: orders\n  destination_table: archive.orders\n  filter_column: created_at\n" +
        "  years_to_migrate: 1\n  months_to_migrate: 0\n  migrate_schedule: '0 1 * * *'\n" +
        "  cleanup: 'off'\n  time_zone: UTC\n  cleanup_window: '22:00-25:00'\n",
    );
    const port = await freePort();
    const result = await startDev({
      PORT: String(port),
      MYSQL_URL: db.url,
      REDIS_URL: testRedisUrl,
      DUCKDB_PATH: join(dir, "policies.duckdb"),
      LOCAL_QUEUE_PREFIX: prefix,
      ARCHIVER_POLICIES: policies,
    });
    expect(result).toEqual({
      code: 2,
      stderr: `error: ARCHIVER_POLICIES=${policies}: retention "orders": cleanup_window: must be "HH:MM-HH:MM" (22:00-05:00 crosses midnight)\n`,
    });
  }, 60_000);
});
