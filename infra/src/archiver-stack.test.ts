import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fn, ofType, one, PROJECT } from "./testing/deploy-dev-stack";
import { deploy, devStackBundles } from "./testing/dev-stack-bundles";

// The stack's queue, Redis and topic; its functions and secrets: archiver-stack-functions.test.ts and
// archiver-stack-secrets.test.ts.

beforeAll(devStackBundles.make);
afterAll(devStackBundles.remove);

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

test.each([
  ["5", "5"],
  ["-1", "-1"],
])("the queue's maxAttempts %s reaches the task handler as TASK_MAX_ATTEMPTS", async (attempts, env) => {
  const run = await deploy({ "table-archiver:queueMaxAttempts": attempts });
  expect(fn(run, "task-handler").inputs.serviceConfig.environmentVariables.TASK_MAX_ATTEMPTS).toBe(env);
  const queue = run.resources.find((r) => r.type === "gcp:cloudtasks/queue:Queue");
  expect(queue?.inputs.retryConfig.maxAttempts).toBe(Number(attempts));
  // Its last attempt is then the queue's last: nothing else (maxRetryDuration) extends the retries.
  expect(queue?.inputs.retryConfig.maxRetryDuration).toBeUndefined();
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
    expect(ofType(run, "gcp:vpcaccess/connector:Connector")).toEqual([]);
  });

  test("with vpcEgress connector, the functions reach the network through a connector the program creates", async () => {
    const run = await deploy({
      "table-archiver:network": "archiver-vpc",
      "table-archiver:vpcEgress": "connector",
      "table-archiver:vpcConnectorRange": "10.9.0.0/28",
    });
    const [connector] = ofType(run, "gcp:vpcaccess/connector:Connector");
    expect(connector?.inputs).toMatchObject({
      region: "europe-west1",
      network: "archiver-vpc",
      ipCidrRange: "10.9.0.0/28",
    });
    for (const key of ["entry", "task-handler", "reader"] as const) {
      const config = fn(run, key).inputs.serviceConfig;
      expect(config.vpcConnector).toBe(
        `projects/${PROJECT}/locations/europe-west1/connectors/archiver-connector`,
      );
      expect(config.vpcConnectorEgressSettings).toBe("PRIVATE_RANGES_ONLY");
      expect(config.directVpcNetworkInterfaces).toBeUndefined();
    }
  });

  test("sets deletion protection explicitly: off by default, on when configured", async () => {
    const redis = async (overrides: Record<string, string>) =>
      ofType(await deploy(overrides), "gcp:redis/instance:Instance")[0]?.inputs.deletionProtection;
    expect(await redis({})).toBe(false);
    expect(await redis({ "table-archiver:redisDeletionProtection": "true" })).toBe(true);
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
