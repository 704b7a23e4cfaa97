import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import * as pulumi from "@pulumi/pulumi";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parse } from "yaml";
import { createArchiverStack, projectRoot } from "./archiver-stack";
import { buildProgram } from "./build-program";
import { readStackConfig } from "./config/stack-config";
import { createFixtureBundles, type FixtureBundles } from "./testing/fixture-bundles";
import { type MockRun, runWithMocks } from "./testing/pulumi-mocks";
import { readStackFile } from "./testing/stack-file";

const run = promisify(execFile);
const infraDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const repoRoot = path.resolve(infraDir, "..");
const devConfig: { config: Record<string, string>; secretKeys: string[] } = {
  config: {
    ...readStackFile(path.join(repoRoot, "infra/stack.example.yaml")),
    "table-archiver:mysqlPassword": "pw",
  },
  secretKeys: ["table-archiver:mysqlPassword"],
};

interface ProjectFile {
  name: string;
  main: string;
  runtime: { name: string; options?: Record<string, unknown> };
}
const project = parse(readFileSync(path.join(repoRoot, "Pulumi.yaml"), "utf8")) as ProjectFile;

let bundles: FixtureBundles;
let harness: string;
let scratch: string;

beforeAll(async () => {
  bundles = createFixtureBundles();
  scratch = mkdtempSync(path.join(tmpdir(), "archiver-program-"));
  await buildProgram(path.resolve(repoRoot, project.main));
  // The harness sits beside the program so both import the same @pulumi/pulumi from infra/node_modules.
  harness = path.join(infraDir, "dist/testing/mock-harness.mjs");
  await build({
    entryPoints: [path.join(infraDir, "src/testing/mock-harness.ts")],
    outfile: harness,
    bundle: true,
    platform: "node",
    target: "node22",
    format: "esm",
    external: ["@pulumi/*"],
    logLevel: "error",
  });
}, 60_000);

afterAll(() => {
  bundles.remove();
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * Runs the `main` Pulumi.yaml names in a fresh Node process, with no TypeScript loader, under mocks, as
 * Pulumi does: from main's own folder, with `projectDir` as the root the engine names.
 */
async function runMainInFreshProcess(projectDir: string, config: object): Promise<MockRun> {
  const configFile = path.join(scratch, `config-${Date.now()}.json`);
  writeFileSync(configFile, JSON.stringify(config));
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    PULUMI_NODEJS_ROOT_DIRECTORY: projectDir,
  };
  const { stdout } = await run(
    process.execPath,
    [harness, path.resolve(repoRoot, project.main), configFile],
    { cwd: scratch, env, timeout: 60_000 },
  );
  const line = stdout.split("\n").find((l) => l.startsWith("MOCK_RUN "));
  if (!line) throw new Error(`the harness printed no result:\n${stdout}`);
  return JSON.parse(line.slice("MOCK_RUN ".length)) as MockRun;
}

describe("Pulumi.yaml", () => {
  test("runs built JavaScript with Pulumi's TypeScript loader off", () => {
    expect(project.name).toBe("table-archiver");
    expect(project.runtime).toEqual({ name: "nodejs", options: { typescript: false } });
    expect(project.main).toBe("infra/dist/index.js");
  });

  test("its main is an ES module package's file, so Pulumi imports it rather than requiring it", () => {
    const manifest = JSON.parse(readFileSync(path.join(infraDir, "package.json"), "utf8")) as {
      type: string;
    };
    expect(path.dirname(path.resolve(repoRoot, project.main))).toBe(path.join(infraDir, "dist"));
    expect(manifest.type).toBe("module");
  });
});

describe("projectRoot", () => {
  test("without a root from the engine (an older CLI), is two folders above the program file", () => {
    expect(projectRoot(path.join(repoRoot, "infra/dist/index.js"))).toBe(repoRoot);
  });
});

describe("the built main in a fresh process", () => {
  test("run from infra/dist as Pulumi runs it, finds the bundles under the project root and registers what the source program does", async () => {
    const fresh = await runMainInFreshProcess(bundles.root, devConfig);
    const inProcess = await runWithMocks(
      () =>
        createArchiverStack(
          readStackConfig(new pulumi.Config(), new pulumi.Config("gcp")),
          bundles.directories,
        ),
      devConfig,
    );
    const names = (r: MockRun) => r.resources.map((res) => `${res.type}::${res.name}`).sort();
    expect(names(fresh)).toEqual(names(inProcess));
    expect(fresh.resources.length).toBeGreaterThan(40);
    expect(fresh.outputs).toEqual(inProcess.outputs);
    expect(Object.keys(fresh.outputs).sort()).toEqual([
      "databaseGrants",
      "dataset",
      "deadLetterTopicName",
      "entryUrl",
      "loadRedisDataUrl",
      "queuePath",
      "taskHandlerUrl",
      "topicName",
    ]);
  }, 60_000);

  test("stops with the command to run when the bundles are not built", async () => {
    const empty = mkdtempSync(path.join(scratch, "unbuilt-"));
    const failure = await runMainInFreshProcess(empty, devConfig).catch(
      (error: { stderr?: string }) => error,
    );
    expect(failure).toMatchObject({ stderr: expect.stringContaining("run `pnpm build` before pulumi") });
  }, 60_000);

  test("names every configuration problem at once", async () => {
    const { "table-archiver:mysqlUrl": _url, ...config } = devConfig.config;
    const failure = await runMainInFreshProcess(bundles.root, {
      config: { ...config, "table-archiver:queueMaxConcurrentDispatches": "0" },
      secretKeys: [],
    }).catch((error: { stderr?: string }) => error);
    expect(failure).toMatchObject({ stderr: expect.stringContaining("mysqlUrl: required") });
    expect(failure).toMatchObject({
      stderr: expect.stringContaining("queueMaxConcurrentDispatches: expected"),
    });
  }, 60_000);

  test("refuses a stack that would reach MySQL without TLS (no CA, no Cloud SQL connector), naming both keys", async () => {
    const { "table-archiver:mysqlTlsCa": _ca, ...config } = devConfig.config;
    const failure = await runMainInFreshProcess(bundles.root, { ...devConfig, config }).catch(
      (error: { stderr?: string }) => error,
    );
    expect(failure).toMatchObject({
      stderr: expect.stringContaining("mysqlTlsCa or cloudSqlInstance: one is required"),
    });
  }, 60_000);

  test("refuses a broken retention policy before creating anything, naming its table and field", async () => {
    const policies = JSON.parse(devConfig.config["table-archiver:retention"] ?? "[]") as object[];
    const broken = [{ ...policies[0], migrate_schedule: "every night" }, ...policies.slice(1)];
    const failure = await runMainInFreshProcess(bundles.root, {
      ...devConfig,
      config: { ...devConfig.config, "table-archiver:retention": JSON.stringify(broken) },
    }).catch((error: { stderr?: string }) => error);
    expect(failure).toMatchObject({
      stderr: expect.stringMatching(/retention "orders": migrate_schedule: must be a cron expression/),
    });
  }, 60_000);
});
