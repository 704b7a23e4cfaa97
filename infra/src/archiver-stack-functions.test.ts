import { configEnvNames } from "@table-archiver/core/config";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { FUNCTION, fn, ofType, PROJECT } from "./testing/deploy-dev-stack";
import { bundles, deploy, devStackBundles } from "./testing/dev-stack-bundles";
import type { MockRun } from "./testing/pulumi-mocks";

beforeAll(devStackBundles.make);
afterAll(devStackBundles.remove);

describe("functions", () => {
  test("gen2 nodejs22 from content-hashed bundles, with the timeouts the issue asks for", async () => {
    const run = await deploy();
    const expected = {
      entry: { name: "archiver-entry", entryPoint: "archiverEntry", timeout: 540 },
      "task-handler": { name: "archiver-task-handler", entryPoint: "archiverTaskHandler", timeout: 600 },
      reader: { name: "loadRedisData", entryPoint: "loadRedisData", timeout: 30 },
    };
    for (const [key, want] of Object.entries(expected)) {
      const { inputs } = fn(run, key as keyof typeof expected);
      expect(inputs.name).toBe(want.name);
      expect(inputs.buildConfig).toMatchObject({ runtime: "nodejs22", entryPoint: want.entryPoint });
      expect(inputs.buildConfig.source.storageSource.object).toMatch(
        new RegExp(`^${want.name.toLowerCase()}-[0-9a-f]{20}\\.zip$`),
      );
      expect(inputs.serviceConfig.timeoutSeconds).toBe(want.timeout);
      expect(inputs.serviceConfig.serviceAccountEmail).toBe(
        `archiver-${key === "reader" ? "reader" : key}@${PROJECT}.iam.gserviceaccount.com`,
      );
    }
    expect(run.outputs.loadRedisDataUrl).toBe(
      `https://europe-west1-${PROJECT}.cloudfunctions.net/loadRedisData`,
    );
  });

  test("a code change renames exactly that function's source object, so only it redeploys", async () => {
    const before = await deploy();
    bundles.change("taskHandler", "// task handler v2\n");
    const after = await deploy();
    const object = (run: MockRun, key: "entry" | "task-handler" | "reader") =>
      fn(run, key).inputs.buildConfig.source.storageSource.object as string;
    expect(object(after, "task-handler")).not.toBe(object(before, "task-handler"));
    expect(object(after, "entry")).toBe(object(before, "entry"));
    expect(object(after, "reader")).toBe(object(before, "reader"));
  });

  test("every environment variable a function gets is a name the config module reads", async () => {
    const run = await deploy();
    const known = new Set<string>(configEnvNames);
    for (const f of ofType(run, FUNCTION)) {
      const config = f.inputs.serviceConfig;
      const names = [
        ...Object.keys(config.environmentVariables),
        ...(config.secretEnvironmentVariables as { key: string }[]).map((s) => s.key),
      ];
      expect(names.length).toBeGreaterThan(2);
      expect(names.filter((name) => !known.has(name))).toEqual([]);
    }
  });

  test("entry and task handler run the production drivers; the entry's tasks target the task handler", async () => {
    const run = await deploy();
    const entryEnv = fn(run, "entry").inputs.serviceConfig.environmentVariables;
    const handlerEnv = fn(run, "task-handler").inputs.serviceConfig.environmentVariables;
    for (const env of [entryEnv, handlerEnv]) {
      expect(env).toMatchObject({
        WAREHOUSE: "bigquery",
        WAREHOUSE_DATASET: "archive",
        BIGQUERY_PROJECT: PROJECT,
        BIGQUERY_LOCATION: "europe-west1",
        QUEUE: "cloud-tasks",
        CLOUD_TASKS_PROJECT: PROJECT,
        CLOUD_TASKS_LOCATION: "europe-west1",
        MYSQL_URL: "mysql://archiver@10.10.0.5:3306/shop",
        ARCHIVER_TIMEZONE: "UTC",
        CLEANUP_CHUNK_ROWS: "5000",
      });
    }
    expect(entryEnv.TASK_HANDLER_URL).toBe(run.outputs.taskHandlerUrl);
    // The driver needs a target to start even where no task is created; the task handler gets its own address.
    expect(handlerEnv.TASK_HANDLER_URL).toBe(
      `https://europe-west1-${PROJECT}.cloudfunctions.net/archiver-task-handler`,
    );
    for (const env of [entryEnv, handlerEnv]) {
      expect(env.TASK_INVOKER_SERVICE_ACCOUNT).toBe(
        `archiver-task-invoker@${PROJECT}.iam.gserviceaccount.com`,
      );
    }
    expect(Object.keys(fn(run, "reader").inputs.serviceConfig.environmentVariables).sort()).toEqual([
      "BIGQUERY_LOCATION",
      "BIGQUERY_PROJECT",
      "CLEANUP_CHUNK_ROWS",
      "CLEANUP_PAUSE_MS",
      "LOG_LEVEL",
      "REDIS_TLS_CA",
      "REDIS_URL",
      "WAREHOUSE",
      "WAREHOUSE_DATASET",
    ]);
  });

  test("are built by the program's builder account into its own image repository, once it holds its roles", async () => {
    const run = await deploy();
    const builder = `projects/${PROJECT}/serviceAccounts/archiver-builder@${PROJECT}.iam.gserviceaccount.com`;
    const repository = `projects/${PROJECT}/locations/europe-west1/repositories/archiver-functions`;
    const grants = [
      "functions-build-builder-logs",
      "functions-build-builder-sources",
      "functions-build-builder-images",
    ];
    for (const key of ["entry", "task-handler", "reader"] as const) {
      expect(fn(run, key).inputs.buildConfig).toMatchObject({
        serviceAccount: builder,
        dockerRepository: repository,
      });
      // The engine starts the function (its first build) only once the builder holds every role.
      expect(fn(run, key).dependencies).toEqual(expect.arrayContaining(grants));
    }
  });
});
