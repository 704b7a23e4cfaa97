import { type ChildProcess, execFile, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  createTestDatabase,
  type TestDatabase,
  testRedisUrl,
  uniqueName,
} from "@table-archiver/core/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type BuiltFunction, buildFunction, NEVER_BUNDLED, RUNTIME_DEPENDENCIES } from "./build-function";

/**
 * Builds each function package, copies the bundle outside the workspace, and
 * serves it with the Functions Framework's CLI in a fresh Node process, as the
 * Cloud Functions runtime would; then makes real requests. The entry function
 * and the task handler run with the production drivers (BigQuery, Cloud
 * Tasks) selected, so their chunks load; MySQL and Redis are the test services.
 */
const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/**
 * `installs`: what the runtime must install for it. Entry and task handler build the whole
 * runtime, whose drivers load from chunks; the reader reads Redis, and loads the BigQuery
 * client from its chunks only for `rebuildSet`, so the Cloud Tasks client is not installed for it.
 */
const FUNCTIONS = {
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
    installs: ["@google-cloud/functions-framework"],
  },
} as const;
type FunctionKey = keyof typeof FUNCTIONS;

interface Served {
  readonly url: string;
  readonly dir: string;
  readonly built: BuiltFunction;
  readonly process: ChildProcess;
  output(): string;
}

const scratch = mkdtempSync(path.join(tmpdir(), "archiver-bundles-"));
const served = {} as Record<FunctionKey, Served>;
let database: TestDatabase;
let redis: Redis;

beforeAll(async () => {
  database = await createTestDatabase("bundle");
  redis = new Redis(testRedisUrl);
  const env = productionLikeEnv(database.url);
  await Promise.all(
    (Object.keys(FUNCTIONS) as FunctionKey[]).map(async (key) => {
      served[key] = await serve(key, key === "reader" ? { REDIS_URL: testRedisUrl } : env);
    }),
  );
}, 120_000);

afterAll(async () => {
  for (const s of Object.values(served)) s.process.kill();
  await redis?.quit();
  await database?.drop();
  rmSync(scratch, { recursive: true, force: true });
});

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

/** Builds, copies out of the workspace, installs the Functions Framework next to it, and starts it. */
async function serve(key: FunctionKey, env: Record<string, string>): Promise<Served> {
  const spec = FUNCTIONS[key];
  const built = await buildFunction(path.join(repoRoot, spec.dir));
  const dir = path.join(scratch, key);
  cpSync(built.outdir, dir, { recursive: true });
  // What the runtime would install from dist/package.json, linked from the workspace's store rather than downloaded.
  for (const [dependency, installed] of Object.entries(built.installedAt)) {
    mkdirSync(path.dirname(path.join(dir, "node_modules", dependency)), { recursive: true });
    symlinkSync(installed, path.join(dir, "node_modules", dependency));
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

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

async function waitUntil(done: () => boolean, describe: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(describe());
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The entry function's JSON log line about the Pub/Sub message `eventId`. */
async function logLine(eventId: string): Promise<unknown> {
  const find = () =>
    served.entry
      .output()
      .split("\n")
      .find((line) => line.startsWith("{") && line.includes(`"eventId":"${eventId}"`));
  await waitUntil(
    () => find() !== undefined,
    () => served.entry.output(),
  );
  return JSON.parse(find() ?? "{}");
}

const base64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");

describe("each bundle", () => {
  test("is self-contained: the runtime installs only its listed dependencies, and nothing points into the workspace", () => {
    for (const [key, s] of Object.entries(served)) {
      const manifest = JSON.parse(readFileSync(path.join(s.dir, "package.json"), "utf8"));
      expect(manifest, key).toMatchObject({ type: "module", main: "index.js", engines: { node: "22" } });
      expect(Object.keys(manifest.dependencies), key).toEqual([...FUNCTIONS[key as FunctionKey].installs]);
      for (const version of Object.values(manifest.dependencies)) expect(version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(readdirSync(path.join(s.dir, "node_modules"))).toEqual(["@google-cloud"]);
      const files = readdirSync(s.dir, { recursive: true, encoding: "utf8" }).filter((f) =>
        f.endsWith(".js"),
      );
      for (const file of files.filter((f) => !f.startsWith("node_modules"))) {
        expect(readFileSync(path.join(s.dir, file), "utf8"), file).not.toContain(repoRoot);
      }
    }
  });

  test("loads every chunk with only its runtime dependencies installed, except those that need a native module production never uses", async () => {
    for (const [key, s] of Object.entries(served)) {
      const { stdout } = await run(process.execPath, ["--input-type=module", "-e", IMPORT_EVERY_CHUNK], {
        cwd: s.dir,
        env: { PATH: process.env.PATH ?? "" },
      });
      const outcomes = JSON.parse(stdout) as Record<string, string>;
      expect(outcomes["index.js"], key).toBe("loaded");
      const failed = Object.entries(outcomes).filter(([, outcome]) => outcome !== "loaded");
      for (const [chunk, outcome] of failed) {
        expect(
          NEVER_BUNDLED.some((name) => outcome.includes(`Cannot find package '${name}'`)),
          `${key} ${chunk}: ${outcome}`,
        ).toBe(true);
      }
      const loaded = Object.keys(outcomes).length - failed.length;
      // The reader's chunks (the BigQuery client, for rebuildSet) need nothing native: all of them load.
      if (key === "reader") expect(failed, key).toEqual([]);
      else expect(loaded, key).toBeGreaterThan(5);
    }
  });
});

/** Imports index.js and every chunk of the bundle in the working directory; prints each outcome. */
const IMPORT_EVERY_CHUNK = `
import { existsSync, readdirSync } from "node:fs";
import { pathToFileURL } from "node:url";
const outcomes = {};
const chunks = existsSync("chunks") ? readdirSync("chunks") : [];
for (const file of ["index.js", ...chunks.map((chunk) => "chunks/" + chunk)]) {
  try {
    await import(pathToFileURL(file).href);
    outcomes[file] = "loaded";
  } catch (error) {
    outcomes[file] = String(error?.message ?? error).split("\\n")[0];
  }
}
console.log(JSON.stringify(outcomes));
process.exit(0);
`;

describe("entry (CloudEvent, Pub/Sub)", () => {
  test("acknowledges an invalid message pushed by our Pub/Sub subscription, naming the field", async () => {
    const table = uniqueName("bad");
    const response = await fetch(`${served.entry.url}/projects/bundle-test/topics/archiver-messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        message: {
          data: base64({ clean_table: table }),
          messageId: "m-1",
          publishTime: new Date().toISOString(),
        },
        subscription: "projects/bundle-test/subscriptions/archiver-messages-entry",
      }),
    });
    expect(response.status).toBeGreaterThanOrEqual(200);
    expect(response.status).toBeLessThan(300);
    expect(await logLine("m-1")).toMatchObject({
      severity: "ERROR",
      code: "INVALID_INPUT",
      field: "filter_column",
    });
  });

  test("acknowledges an invalid message delivered as Eventarc's binary CloudEvent", async () => {
    const response = await fetch(served.entry.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "ce-specversion": "1.0",
        "ce-type": "google.cloud.pubsub.topic.v1.messagePublished",
        "ce-source": "//pubsub.googleapis.com/projects/bundle-test/topics/archiver-messages",
        "ce-id": "m-2",
      },
      body: JSON.stringify({ message: { data: base64("not a message"), messageId: "m-2" } }),
    });
    expect(response.status).toBeLessThan(300);
    expect(await logLine("m-2")).toMatchObject({ severity: "ERROR", code: "INVALID_INPUT" });
  });
});

describe("task handler (HTTP)", () => {
  test("answers 400 with the error body for a task that can never succeed", async () => {
    const response = await fetch(served.taskHandler.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ kind: "copy", table: "orders" }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: "INVALID_INPUT" } });
  });

  test("answers 405 to anything but POST", async () => {
    const response = await fetch(served.taskHandler.url);
    expect(response.status).toBe(405);
  });
});

describe("loadRedisData (HTTP)", () => {
  test("answers getSet with the members of a real Redis set", async () => {
    const key = `mig_${uniqueName("bundle")}`;
    await redis.sadd(key, "2021-01-03", "2021-01-01", "2021-01-02");
    try {
      const response = await fetch(served.reader.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ method: "getSet", data: key }),
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(["2021-01-01", "2021-01-02", "2021-01-03"]);
    } finally {
      await redis.del(key);
    }
  });

  test("refuses a key outside mig_*", async () => {
    const response = await fetch(served.reader.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ method: "getSet", data: "transportitas" }),
    });
    expect(response.status).toBe(403);
  });
});
