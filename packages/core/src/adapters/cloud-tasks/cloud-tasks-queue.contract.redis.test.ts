import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, InvalidInputError, TransientError } from "../../errors";
import type { CopyDayTask } from "../../model/task";
import type { TaskQueue } from "../../ports/task-queue";
import { describeTaskQueueContract } from "../../testing/task-queue-contract";
import { deleteKeysWithPrefix, testRedisUrl, uniqueName } from "../../testing/test-services";
import { type CloudTasksQueueOptions, createCloudTasksQueue } from "./cloud-tasks-queue";
import { hourlyRun, taskId } from "./task-request";
import {
  type CloudTasksStandIn,
  standInTasksClientOptions,
  startCloudTasksStandIn,
  TASKS_STAND_IN_TOKEN,
} from "./testing/tasks-rest-stand-in";

// Contract tests of the Cloud Tasks queue adapter: the real @google-cloud/tasks
// client talks over its REST transport to a local stand-in of the API. They
// prove the requests and the bookkeeping, not Cloud Tasks itself; the live
// suite (cloud-tasks-queue.live.test.ts) runs against a real queue.

const PROJECT = "acme-test";
const LOCATION = "europe-west1";
const PARENT = `projects/${PROJECT}/locations/${LOCATION}/queues/jobs-migration`;
const HANDLER = "https://task-handler-abc-ew.a.run.app/";
const INVOKER = "task-invoker@acme-test.iam.gserviceaccount.com";

let redis: Redis;

beforeAll(() => {
  redis = new Redis(testRedisUrl);
});
afterAll(async () => {
  await redis.quit();
});

async function openQueue(standIn: CloudTasksStandIn, extra: Partial<CloudTasksQueueOptions> = {}) {
  const prefix = uniqueName("ct_test");
  const queue = createCloudTasksQueue({
    project: PROJECT,
    location: LOCATION,
    handlerUrl: HANDLER,
    invokerServiceAccount: INVOKER,
    dispatchDeadlineSeconds: 900,
    ledgerRedis: redis,
    bookkeepingPrefix: prefix,
    clientOptions: standInTasksClientOptions(standIn.port),
    ...extra,
  });
  const cleanup = async () => {
    await queue.close();
    await deleteKeysWithPrefix(redis, prefix);
  };
  return { queue, cleanup };
}

describeTaskQueueContract("Cloud Tasks adapter against the local REST stand-in", async () => {
  const standIn = await startCloudTasksStandIn(PROJECT, LOCATION);
  const { queue, cleanup } = await openQueue(standIn);
  return {
    queue,
    async cleanup() {
      await cleanup();
      await standIn.close();
    },
  };
});

describe("Cloud Tasks queue adapter against the local REST stand-in (contract)", () => {
  const task = (day: string, table = "orders"): CopyDayTask => ({
    kind: "copy",
    table,
    destination: `archive.${table}`,
    filterColumn: "created_at",
    day,
  });
  const now = new Date("2024-02-01T10:30:00Z");
  let standIn: CloudTasksStandIn;
  let queue: TaskQueue;
  let cleanup: () => Promise<void>;
  let clock: Date;

  beforeEach(async () => {
    clock = now;
    standIn = await startCloudTasksStandIn(PROJECT, LOCATION);
    ({ queue, cleanup } = await openQueue(standIn, { clock: () => clock }));
  });
  afterEach(async () => {
    await cleanup();
    await standIn.close();
  });

  it("creates an HTTP task: POST of the payload, OIDC token, dispatch deadline, hashed name", async () => {
    await queue.enqueue([task("2024-01-31")]);
    const [create] = standIn.requests;
    expect(create).toMatchObject({
      method: "POST",
      path: `/v2/${PARENT}/tasks`,
      authorization: `Bearer ${TASKS_STAND_IN_TOKEN}`,
    });
    const sent = (create?.body as { task?: { httpRequest?: { body?: string } } } | undefined)?.task;
    expect(sent).toEqual({
      name: `${PARENT}/tasks/${taskId(task("2024-01-31"), hourlyRun(now))}`,
      httpRequest: {
        url: HANDLER,
        httpMethod: 1, // POST, in the numeric enum encoding the REST transport uses
        headers: { "Content-Type": "application/json" },
        body: expect.any(String),
        oidcToken: { serviceAccountEmail: INVOKER, audience: "https://task-handler-abc-ew.a.run.app" },
      },
      dispatchDeadline: "900s",
    });
    const body = Buffer.from(sent?.httpRequest?.body ?? "", "base64").toString("utf8");
    expect(JSON.parse(body)).toEqual(task("2024-01-31"));
  });

  it("counts a duplicate create (ALREADY_EXISTS of a live task) as already queued", async () => {
    await queue.enqueue([task("2024-01-31")]);
    expect(await queue.enqueue([task("2024-01-31")])).toEqual({ added: 0, alreadyQueued: 1 });
    expect(standIn.tasks.size).toBe(1);
    expect(standIn.requests.map((r) => `${r.method} ${r.path.replace(PARENT, "Q")}`)).toEqual([
      "POST /v2/Q/tasks",
      "POST /v2/Q/tasks",
      `GET /v2/Q/tasks/${taskId(task("2024-01-31"), hourlyRun(now))}`,
    ]);
  });

  it("enqueues a day again when its earlier task already ran and Cloud Tasks still holds the name", async () => {
    await queue.enqueue([task("2024-01-31")]);
    const [first] = standIn.tasks.keys();
    standIn.finish(first ?? "");
    await queue.settle(task("2024-01-31"));

    expect(await queue.enqueue([task("2024-01-31")])).toEqual({ added: 1, alreadyQueued: 0 });
    expect([...standIn.tasks.keys()]).toEqual([
      `${PARENT}/tasks/${taskId(task("2024-01-31"), `${hourlyRun(now)}r1`)}`,
    ]);

    clock = new Date("2024-02-01T11:00:00Z");
    standIn.finish([...standIn.tasks.keys()][0] ?? "");
    expect(await queue.enqueue([task("2024-01-31")])).toEqual({ added: 1, alreadyQueued: 0 });
    expect([...standIn.tasks.keys()]).toEqual([
      `${PARENT}/tasks/${taskId(task("2024-01-31"), "2024020111")}`,
    ]);
  });

  it("reads the task count from v2beta3 getQueue with the stats read mask", async () => {
    expect(await queue.count()).toBe(0);
    await queue.enqueue([task("2024-01-01"), task("2024-01-02")]);
    expect(await queue.count()).toBe(2);
    const statsReads = standIn.requests.filter((r) => r.method === "GET" && r.path === `/v2beta3/${PARENT}`);
    expect(statsReads.map((r) => r.query.readMask)).toEqual(["stats", "stats"]);
  });

  it("settles a day out of the bookkeeping", async () => {
    await queue.enqueue([task("2024-01-01"), task("2024-01-02")]);
    await queue.settle(task("2024-01-01"));
    expect([...(await queue.queuedDays("copy", "orders"))]).toEqual(["2024-01-02"]);
  });

  it("ignores bookkeeping older than the queue's retry horizon", async () => {
    standIn.retryConfig = { maxAttempts: 5, maxRetryDuration: "3600s" };
    await queue.enqueue([task("2024-01-01")]);
    // Horizon: 3600 s of retries + 2 x 900 s dispatch deadline = 5400 s.
    clock = new Date(now.getTime() + 5_400_000);
    expect([...(await queue.queuedDays("copy", "orders"))]).toEqual(["2024-01-01"]);
    clock = new Date(now.getTime() + 5_400_001);
    expect((await queue.queuedDays("copy", "orders")).size).toBe(0);
    expect(
      standIn.requests.some((r) => r.path === `/v2beta3/${PARENT}` && r.query.readMask === undefined),
    ).toBe(true);
  });

  it("keeps nothing in the bookkeeping for a create that failed, and retries it as transient", async () => {
    standIn.failNext("POST", /\/tasks$/, 503, "UNAVAILABLE");
    await expect(queue.enqueue([task("2024-01-01")])).rejects.toBeInstanceOf(TransientError);
    expect((await queue.queuedDays("copy", "orders")).size).toBe(0);
  });

  it("names the roles when creating a task is denied", async () => {
    standIn.failNext("POST", /\/tasks$/, 403, "PERMISSION_DENIED");
    const failure = queue.enqueue([task("2024-01-01")]);
    await expect(failure).rejects.toBeInstanceOf(ConfigError);
    await expect(failure).rejects.toThrow(
      /roles\/cloudtasks\.enqueuer.*roles\/iam\.serviceAccountUser on task-invoker@/,
    );
  });

  it("makes a refused task invalid input", async () => {
    standIn.failNext("POST", /\/tasks$/, 400, "INVALID_ARGUMENT");
    await expect(queue.enqueue([task("2024-01-01")])).rejects.toBeInstanceOf(InvalidInputError);
  });

  it("reports a missing queue as configuration to fix", async () => {
    standIn.failNext("GET", /^\/v2beta3\//, 404, "NOT_FOUND");
    await expect(queue.count()).rejects.toThrow(/queue is missing or disabled/);
  });
});
