import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase, freePort, type TestDatabase, testRedisUrl } from "@table-archiver/core/testing";
import { Redis } from "ioredis";
import { type BuiltFunction, buildFunction, RUNTIME_DEPENDENCIES } from "../build-function";

/**
 * Builds each function package, copies the bundle outside the workspace, and
 * serves it with the Functions Framework's CLI in a fresh Node process, as the
 * Cloud Functions runtime would, for a test file to make real requests to and
 * look into. The entry function and the task handler run with the production
 * drivers (BigQuery, Cloud Tasks) selected, so their chunks load; MySQL and
 * Redis are the test services. Served in the file's beforeAll, stopped and
 * removed in its afterAll; vitest gives each test file its own instance of
 * this module.
 */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/**
 * `installs`: what the runtime must install for it. Entry and task handler build the whole
 * runtime, whose drivers load from chunks; the reader reads Redis, and loads the BigQuery
 * client from its chunks only for `rebuildSet`, so the Cloud Tasks client is not installed for it.
 */
export const FUNCTIONS = {
  entry: {
    dir: "packages/entry",
    target: "archiverEntry",
    signature: "cloudevent",
    installs: RUNTIME_DEPENDENCIES,
  },
  taskHandler: {
    dir: "packages/task-handler",
    target: "archiverTaskHandler",
    signature: "http",
    installs: RUNTIME_DEPENDENCIES,
  },
  reader: {
    dir: "packages/redis-reader",
    target: "loadRedisData",
    signature: "http",
    installs: ["@google-cloud/functions-framework", "https-proxy-agent"],
  },
} as const;
export type FunctionKey = keyof typeof FUNCTIONS;

export interface Served {
  readonly url: string;
  readonly dir: string;
  readonly built: BuiltFunction;
  readonly process: ChildProcess;
  output(): string;
}

const scratch = mkdtempSync(path.join(tmpdir(), "archiver-bundles-"));
export const served = {} as Record<FunctionKey, Served>;
let database: TestDatabase;
export let redis: Redis;

export const servedFunctions = {
  async start(): Promise<void> {
    database = await createTestDatabase("bundle");
    redis = new Redis(testRedisUrl);
    const env = productionLikeEnv(database.url);
    await Promise.all(
      (Object.keys(FUNCTIONS) as FunctionKey[]).map(async (key) => {
        served[key] = await serve(key, key === "reader" ? { REDIS_URL: testRedisUrl } : env);
      }),
    );
  },
  async stop(): Promise<void> {
    for (const s of Object.values(served)) s.process.kill();
    await redis?.quit();
    await database?.drop();
    rmSync(scratch, { recursive: true, force: true });
  },
};

function productionLikeEnv(mysqlUrl: string): Record<string, string> {
  return {
    MYSQL_URL: mysqlUrl,
    REDIS_URL: testRedisUrl,
    WAREHOUSE: "bigquery",
    WAREHOUSE_DATASET: "archive",
    BIGQUERY_PROJECT: "bundle-test",
    BIGQUERY_LOCATION: "EU",
    QUEUE: "cloud-tasks",
    CLOUD_TASKS_PROJECT: "bundle-test",
    CLOUD_TASKS_LOCATION: "europe-west1",
    TASK_HANDLER_URL: "https://archiver-task-handler.invalid/",
    TASK_INVOKER_SERVICE_ACCOUNT: "archiver-task-invoker@bundle-test.iam.gserviceaccount.com",
  };
}

/** Builds, copies out of the workspace, installs what its lockfile lists, and starts it (servedFunctions.stop ends it). */
export async function serve(key: FunctionKey, env: Record<string, string>): Promise<Served> {
  const spec = FUNCTIONS[key];
  const built = await buildFunction(path.join(repoRoot, spec.dir));
  const dir = path.join(scratch, key);
  cpSync(built.outdir, dir, { recursive: true });
  // The tree `npm ci` installs from dist/package-lock.json, each package at its path there, copied from the
  // workspace's store rather than downloaded; copied, not linked, so that Node resolves every import through
  // this tree's layout and not pnpm's. Another platform's optional packages were never installed.
  for (const [location, installed] of Object.entries(built.installedAt)) {
    if (installed) cpSync(installed, path.join(dir, location), { recursive: true });
  }
  const port = await freePort();
  const cli = path.join(dir, "node_modules/@google-cloud/functions-framework/build/src/main.js");
  const child = spawn(
    process.execPath,
    [cli, `--target=${spec.target}`, `--signature-type=${spec.signature}`, `--port=${port}`],
    { cwd: dir, env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  await waitUntil(
    () => output.includes("Serving function"),
    () => `${key} did not start:\n${output}`,
  );
  return { url: `http://127.0.0.1:${port}`, dir, built, process: child, output: () => output };
}

export async function waitUntil(
  done: () => boolean,
  describe: () => string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(describe());
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
