import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { deployDevStack, fn, ofType, one, PROJECT, sa, service } from "../testing/deploy-dev-stack";
import { createFixtureBundles, type FixtureBundles } from "../testing/fixture-bundles";
import { MOCK_PROJECT_NUMBER, type MockRun } from "../testing/pulumi-mocks";
import { type AccessScope, type FunctionKey, rolesOf } from "./function-access";

const PUBSUB_AGENT = `serviceAccount:service-${MOCK_PROJECT_NUMBER}@gcp-sa-pubsub.iam.gserviceaccount.com`;

let bundles: FixtureBundles;
beforeAll(() => {
  bundles = createFixtureBundles();
});
afterAll(() => bundles.remove());
const deploy = (overrides: Record<string, string | undefined> = {}) => deployDevStack(bundles, overrides);

/** Where each IAM member resource type keeps the resource it grants on. */
const IAM_TARGETS: Record<string, (inputs: Record<string, string>) => string> = {
  "gcp:cloudtasks/queueIamMember:QueueIamMember": (i) => `queue ${i.location}/${i.name}`,
  "gcp:serviceaccount/iAMMember:IAMMember": (i) => `service account ${i.serviceAccountId}`,
  "gcp:cloudrunv2/serviceIamMember:ServiceIamMember": (i) => `service ${i.name}`,
  "gcp:bigquery/datasetIamMember:DatasetIamMember": (i) => `dataset ${i.datasetId}`,
  "gcp:projects/iAMMember:IAMMember": (i) => `project ${i.project}`,
  "gcp:secretmanager/secretIamMember:SecretIamMember": (i) => `secret ${i.secretId}`,
  "gcp:pubsub/topicIAMMember:TopicIAMMember": (i) => `topic ${i.topic}`,
  "gcp:pubsub/subscriptionIAMMember:SubscriptionIAMMember": (i) => `subscription ${i.subscription}`,
  "gcp:artifactregistry/repositoryIamMember:RepositoryIamMember": (i) => `repository ${i.repository}`,
};

/** Every grant the program makes, as `member -> role on resource`; an unknown IAM type fails the test. */
function grants(run: MockRun): string[] {
  return run.resources
    .filter((r) => /iam/i.test(r.type))
    .map((r) => {
      const target = IAM_TARGETS[r.type];
      if (!target)
        throw new Error(`unexpected IAM resource ${r.type} (${r.name}): add it to the expected grants`);
      return `${r.inputs.member} -> ${r.inputs.role} on ${target(r.inputs)}`;
    })
    .sort();
}

const BASE_GRANTS = [
  // entry may enqueue on this queue (and read its task count) and act as the task invoker account
  `${sa("entry")} -> roles/cloudtasks.enqueuer on queue europe-west1/jobs-migration`,
  `${sa("entry")} -> roles/cloudtasks.viewer on queue europe-west1/jobs-migration`,
  `${sa("entry")} -> roles/iam.serviceAccountUser on service account projects/${PROJECT}/serviceAccounts/archiver-task-invoker@${PROJECT}.iam.gserviceaccount.com`,
  // cleanup's entry step: the destination tables exist (tables.get), the dry run's figures (query jobs);
  // a run that queues nothing (a dry run) ends there, its row appended to _archiver_runs (created if missing)
  `${sa("entry")} -> roles/bigquery.dataEditor on dataset archive`,
  `${sa("entry")} -> roles/bigquery.jobUser on project ${PROJECT}`,
  // the task invoker account may invoke the task handler only
  `${sa("task-invoker")} -> roles/run.invoker on service ${service("archiver-task-handler")}`,
  // the task handler may edit the dataset and run jobs
  `${sa("task-handler")} -> roles/bigquery.dataEditor on dataset archive`,
  `${sa("task-handler")} -> roles/bigquery.jobUser on project ${PROJECT}`,
  // the reader may read the dataset (the durable day record, for rebuildSet) and run query jobs
  `${sa("reader")} -> roles/bigquery.dataViewer on dataset archive`,
  `${sa("reader")} -> roles/bigquery.jobUser on project ${PROJECT}`,
  // configured principals may invoke the reader; the trigger's account may invoke the entry
  `group:archiver-operators@example.com -> roles/run.invoker on service ${service("loadredisdata")}`,
  `${sa("trigger")} -> roles/run.invoker on service ${service("archiver-entry")}`,
  // the stack's publishers (a cleanup message deletes rows) may publish to the topic only
  "group:archiver-operators@example.com -> roles/pubsub.publisher on topic archiver-messages",
  // each function may read only its own secrets
  `${sa("entry")} -> roles/secretmanager.secretAccessor on secret projects/${PROJECT}/secrets/archiver-mysql-password`,
  `${sa("entry")} -> roles/secretmanager.secretAccessor on secret projects/${PROJECT}/secrets/archiver-redis-auth`,
  `${sa("task-handler")} -> roles/secretmanager.secretAccessor on secret projects/${PROJECT}/secrets/archiver-mysql-password`,
  `${sa("task-handler")} -> roles/secretmanager.secretAccessor on secret projects/${PROJECT}/secrets/archiver-redis-auth`,
  `${sa("reader")} -> roles/secretmanager.secretAccessor on secret projects/${PROJECT}/secrets/archiver-redis-auth`,
  // Cloud Build, as the builder: build logs, the staged source, the images in the program's repository
  `${sa("builder")} -> roles/logging.logWriter on project ${PROJECT}`,
  `${sa("builder")} -> roles/storage.objectViewer on project ${PROJECT}`,
  `${sa("builder")} -> roles/artifactregistry.writer on repository archiver-functions`,
  // Pub/Sub signs its pushes as the trigger account
  `${PUBSUB_AGENT} -> roles/iam.serviceAccountTokenCreator on service account projects/${PROJECT}/serviceAccounts/archiver-trigger@${PROJECT}.iam.gserviceaccount.com`,
  // dead-lettering needs Pub/Sub's own agent to publish the failed message and ack the original
  `${PUBSUB_AGENT} -> roles/pubsub.publisher on topic archiver-messages-dead-letter`,
  `${PUBSUB_AGENT} -> roles/pubsub.subscriber on subscription archiver-messages-entry`,
];

describe("IAM", () => {
  test("every binding grants exactly its listed role on exactly its resource, and nothing else", async () => {
    expect(grants(await deploy())).toEqual([...BASE_GRANTS].sort());
  });

  test("Pub/Sub's service agent is created before any grant to it", async () => {
    const run = await deploy();
    const agent = one(run, "gcp:projects/serviceIdentity:ServiceIdentity", "access-pubsub-agent");
    expect(agent.inputs).toMatchObject({ project: PROJECT, service: "pubsub.googleapis.com" });
    const toAgent = run.resources.filter((r) => r.inputs.member === PUBSUB_AGENT);
    expect(toAgent).toHaveLength(3);
    for (const grant of toAgent) expect(grant.dependencies, grant.name).toContain(agent.name);
  });

  test("no function is public: nothing grants allUsers or allAuthenticatedUsers, only additive members", async () => {
    const run = await deploy({
      "table-archiver:readerInvokers": JSON.stringify(["user:ana@example.com", "group:ops@example.com"]),
    });
    const members = run.resources.filter((r) => /iam/i.test(r.type)).map((r) => r.inputs.member as string);
    expect(members.length).toBeGreaterThan(10);
    for (const member of members) expect(member).not.toMatch(/^all(Authenticated)?Users$/);
    expect(run.resources.filter((r) => /Iam(Binding|Policy)|IAM(Binding|Policy)/.test(r.type))).toEqual([]);
    const readerInvokers = ofType(run, "gcp:cloudrunv2/serviceIamMember:ServiceIamMember")
      .filter((r) => r.inputs.name === service("loadredisdata"))
      .map((r) => r.inputs.member);
    expect(readerInvokers.sort()).toEqual(["group:ops@example.com", "user:ana@example.com"]);
    for (const key of ["entry", "task-handler", "reader"] as const) {
      expect(fn(run, key).inputs.eventTrigger).toBeUndefined();
    }
  });

  test("a Cloud SQL source adds only connect and IAM login for the two functions that open MySQL", async () => {
    const run = await deploy({
      "table-archiver:mysqlPassword": undefined,
      "table-archiver:cloudSqlInstance": `${PROJECT}:europe-west1:shop`,
      "table-archiver:cloudSqlIamAuth": "true",
    });
    const withoutPassword = BASE_GRANTS.filter((g) => !g.includes("archiver-mysql-password"));
    const cloudSql = ["entry", "task-handler"].flatMap((id) => [
      `${sa(id)} -> roles/cloudsql.client on project ${PROJECT}`,
      `${sa(id)} -> roles/cloudsql.instanceUser on project ${PROJECT}`,
    ]);
    expect(grants(run)).toEqual([...withoutPassword, ...cloudSql].sort());
    expect(fn(run, "entry").inputs.serviceConfig.environmentVariables).toMatchObject({
      CLOUD_SQL_INSTANCE: `${PROJECT}:europe-west1:shop`,
      CLOUD_SQL_IAM_AUTH: "true",
    });
  });

  test("each function's account holds exactly the roles of the calls in function-access.ts, where they apply", async () => {
    const run = await deploy({
      "table-archiver:extraDatasets": JSON.stringify(["old_orders", "shop-archive.orders"]),
    });
    const resource: Record<AccessScope, string[]> = {
      queue: ["queue europe-west1/jobs-migration"],
      taskInvoker: [
        `service account projects/${PROJECT}/serviceAccounts/archiver-task-invoker@${PROJECT}.iam.gserviceaccount.com`,
      ],
      project: [`project ${PROJECT}`],
      datasets: ["dataset archive", "dataset old_orders", "dataset orders"],
      projectDatasets: ["dataset archive", "dataset old_orders"],
    };
    const accounts: Record<FunctionKey, string> = {
      entry: "entry",
      taskHandler: "task-handler",
      reader: "reader",
    };
    for (const [key, id] of Object.entries(accounts) as [FunctionKey, string][]) {
      const expected = rolesOf(key).flatMap(({ role, on }) =>
        resource[on].map((r) => `${sa(id)} -> ${role} on ${r}`),
      );
      const held = grants(run).filter((g) => g.startsWith(`${sa(id)} `) && !g.includes("secretmanager"));
      expect(held, key).toEqual(expected.sort());
    }
  });

  test("a dataset of another project is granted on there, never created; one of the stack's project is created", async () => {
    const run = await deploy({
      "table-archiver:extraDatasets": JSON.stringify(["old_orders", "shop-archive.orders"]),
    });
    const datasets = ofType(run, "gcp:bigquery/dataset:Dataset").map(
      (d) => `${d.inputs.project}.${d.inputs.datasetId}`,
    );
    expect(datasets.sort()).toEqual([`${PROJECT}.archive`, `${PROJECT}.old_orders`]);
    const onOther = ofType(run, "gcp:bigquery/datasetIamMember:DatasetIamMember").filter(
      (g) => g.inputs.project === "shop-archive",
    );
    expect(onOther.map((g) => `${g.inputs.member} ${g.inputs.role} ${g.inputs.datasetId}`).sort()).toEqual([
      `${sa("entry")} roles/bigquery.dataEditor orders`,
      `${sa("task-handler")} roles/bigquery.dataEditor orders`,
    ]);
    expect(one(run, "gcp:bigquery/dataset:Dataset", "warehouse-dataset-old_orders").inputs.location).toBe(
      "europe-west1",
    );
  });
});
