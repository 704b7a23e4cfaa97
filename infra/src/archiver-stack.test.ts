import { configEnvNames } from "@table-archiver/core/config";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  deployDevStack,
  FUNCTION,
  fn,
  MYSQL_PASSWORD,
  ofType,
  one,
  PROJECT,
} from "./testing/deploy-dev-stack";
import { createFixtureBundles, type FixtureBundles } from "./testing/fixture-bundles";
import type { MockRun } from "./testing/pulumi-mocks";

const REDIS_AUTH = "mock-redis-auth";

let bundles: FixtureBundles;
beforeAll(() => {
  bundles = createFixtureBundles();
});
afterAll(() => bundles.remove());
const deploy = (overrides: Record<string, string | undefined> = {}) => deployDevStack(bundles, overrides);

describe("the jobs-migration queue", () => {
  test("is named jobs-migration and takes its rate limits and retry policy from config", async () => {
    const run = await deploy({
      "table-archiver:queueMaxDispatchesPerSecond": "7.5",
      "table-archiver:queueMaxConcurrentDispatches": "3",
      "table-archiver:queueMaxAttempts": "9",
      "table-archiver:queueMinBackoff": "5s",
      "table-archiver:queueMaxBackoff": "120s",
      "table-archiver:queueMaxDoublings": "2",
    });
    const queues = ofType(run, "gcp:cloudtasks/queue:Queue");
    expect(queues).toHaveLength(1);
    expect(queues[0]?.inputs).toMatchObject({
      name: "jobs-migration",
      location: "europe-west1",
      rateLimits: { maxDispatchesPerSecond: 7.5, maxConcurrentDispatches: 3 },
      retryConfig: { maxAttempts: 9, minBackoff: "5s", maxBackoff: "120s", maxDoublings: 2 },
    });
    expect(run.outputs.queuePath).toBe(`projects/${PROJECT}/locations/europe-west1/queues/jobs-migration`);
  });

  test.each([
    ["600", 600],
    ["1800", 1800],
    ["45", 45],
  ])("with a dispatch deadline of %ss the task handler's timeout covers it", async (deadline, seconds) => {
    const run = await deploy({ "table-archiver:dispatchDeadlineSeconds": deadline });
    const handler = fn(run, "task-handler").inputs.serviceConfig;
    expect(handler.timeoutSeconds).toBeGreaterThanOrEqual(seconds);
    expect(fn(run, "entry").inputs.serviceConfig.environmentVariables.TASK_DISPATCH_DEADLINE_SECONDS).toBe(
      deadline,
    );
  });
});

describe("Memorystore", () => {
  test("has AUTH and TLS with server authentication on the configured private network", async () => {
    const run = await deploy({
      "table-archiver:network": "archiver-vpc",
      "table-archiver:subnetwork": "functions",
    });
    const [redis] = ofType(run, "gcp:redis/instance:Instance");
    expect(redis?.inputs).toMatchObject({
      authEnabled: true,
      transitEncryptionMode: "SERVER_AUTHENTICATION",
      connectMode: "DIRECT_PEERING",
      authorizedNetwork: `projects/${PROJECT}/global/networks/archiver-vpc`,
    });
    for (const key of ["entry", "task-handler", "reader"] as const) {
      const config = fn(run, key).inputs.serviceConfig;
      expect(config.environmentVariables.REDIS_URL).toBe("rediss://10.20.0.3:6378");
      expect(config.environmentVariables.REDIS_TLS_CA).toContain("MOCKCA");
      expect(config.directVpcNetworkInterfaces).toEqual([
        { network: "archiver-vpc", subnetwork: "functions" },
      ]);
      expect(config.directVpcEgress).toBe("VPC_EGRESS_PRIVATE_RANGES_ONLY");
      expect(config.vpcConnector).toBeUndefined();
    }
  });
});

describe("secrets", () => {
  test("reach only their functions, as Secret Manager references and never as plain values", async () => {
    const run = await deploy();
    const secretKeys = (key: "entry" | "task-handler" | "reader") =>
      (fn(run, key).inputs.serviceConfig.secretEnvironmentVariables as { key: string; secret: string }[])
        .map((s) => `${s.key}=${s.secret}`)
        .sort();
    expect(secretKeys("entry")).toEqual([
      "MYSQL_PASSWORD=archiver-mysql-password",
      "REDIS_AUTH=archiver-redis-auth",
    ]);
    expect(secretKeys("task-handler")).toEqual(secretKeys("entry"));
    expect(secretKeys("reader")).toEqual(["REDIS_AUTH=archiver-redis-auth"]);

    for (const f of ofType(run, FUNCTION)) {
      const plain = JSON.stringify(f.inputs);
      expect(plain).not.toContain(MYSQL_PASSWORD);
      expect(plain).not.toContain(REDIS_AUTH);
    }
    const versions = ofType(run, "gcp:secretmanager/secretVersion:SecretVersion");
    const data = versions.map((v) => v.inputs.secretData as { value: string; [sig: string]: string });
    expect(data.map((d) => d.value).sort()).toEqual([MYSQL_PASSWORD, REDIS_AUTH].sort());
    // Pulumi's secret marker: the values are encrypted in the state, not stored in plain text.
    for (const d of data)
      expect(d["4dabf18193072939515e22adb298388d"]).toBe("1b47061264138c4ac30d75fd1eb44270");
  });

  test("a function is deployed only after its account can read the secrets it mounts", async () => {
    const run = await deploy();
    const accessGrants = ofType(run, "gcp:secretmanager/secretIamMember:SecretIamMember");
    expect(accessGrants.map((g) => g.name).sort()).toEqual(
      [
        "functions-entry-reads-mysql-password",
        "functions-entry-reads-redis-auth",
        "functions-reader-reads-redis-auth",
        "functions-task-handler-reads-mysql-password",
        "functions-task-handler-reads-redis-auth",
      ].sort(),
    );
    // Registration order is the engine's order: every grant reaches it before the function that needs it.
    const index = (name: string) => run.resources.findIndex((r) => r.name === name);
    for (const grant of accessGrants) {
      const owner = grant.name.replace(/-reads-.*$/, "");
      expect(index(grant.name)).toBeLessThan(index(owner));
    }
  });
});

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
});

describe("the topic", () => {
  test("pushes to the entry function as the trigger account, retrying with backoff, then dead-letters", async () => {
    const run = await deploy({ "table-archiver:maxDeliveryAttempts": "7" });
    const push = one(run, "gcp:pubsub/subscription:Subscription", "entry-trigger-push").inputs;
    expect(push).toMatchObject({
      topic: `projects/${PROJECT}/topics/archiver-messages`,
      ackDeadlineSeconds: 600,
      pushConfig: {
        pushEndpoint: `${run.outputs.entryUrl}/projects/${PROJECT}/topics/archiver-messages`,
        oidcToken: {
          serviceAccountEmail: `archiver-trigger@${PROJECT}.iam.gserviceaccount.com`,
          audience: run.outputs.entryUrl,
        },
      },
      retryPolicy: { minimumBackoff: "10s", maximumBackoff: "600s" },
      deadLetterPolicy: {
        deadLetterTopic: `projects/${PROJECT}/topics/archiver-messages-dead-letter`,
        maxDeliveryAttempts: 7,
      },
    });
    expect(push.ackDeadlineSeconds).toBeGreaterThan(fn(run, "entry").inputs.serviceConfig.timeoutSeconds);
    const keep = one(run, "gcp:pubsub/subscription:Subscription", "messages-dead-letter").inputs;
    expect(keep.topic).toBe(`projects/${PROJECT}/topics/archiver-messages-dead-letter`);
    expect(run.outputs).toMatchObject({
      topicName: "archiver-messages",
      deadLetterTopicName: "archiver-messages-dead-letter",
      dataset: `${PROJECT}.archive`,
    });
  });
});
