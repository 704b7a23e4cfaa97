import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fn, ofType, PROJECT, sa } from "./testing/deploy-dev-stack";
import { deploy, devStackBundles } from "./testing/dev-stack-bundles";

// How the functions reach MySQL (TLS, the Cloud SQL connector and its logins), who may publish, and
// the cleanup's retention floor, as the program deploys them.

beforeAll(devStackBundles.make);
afterAll(devStackBundles.remove);

const env = async (overrides: Record<string, string | undefined>) => {
  const run = await deploy(overrides);
  return {
    run,
    entry: fn(run, "entry").inputs.serviceConfig.environmentVariables,
    handler: fn(run, "task-handler").inputs.serviceConfig.environmentVariables,
    reader: fn(run, "reader").inputs.serviceConfig.environmentVariables,
  };
};

const OTHER_PROJECT = "shop-prod";
const INSTANCE = `${OTHER_PROJECT}:europe-west1:shop`;
const cloudSql = (iamAuth: boolean) => ({
  "table-archiver:mysqlTlsCa": undefined,
  "table-archiver:cloudSqlInstance": INSTANCE,
  "table-archiver:cloudSqlIamAuth": String(iamAuth),
  ...(iamAuth ? { "table-archiver:mysqlPassword": undefined } : {}),
});

// A stack with neither a CA nor the connector is refused: program.test.ts (in a process of its own).
describe("TLS to MySQL", () => {
  test("the stack's CA reaches the two functions that open MySQL as MYSQL_TLS_CA", async () => {
    const { entry, handler, reader } = await env({});
    for (const vars of [entry, handler]) expect(vars.MYSQL_TLS_CA).toContain("-----BEGIN CERTIFICATE-----");
    expect(reader.MYSQL_TLS_CA).toBeUndefined();
  });
});

describe("Cloud SQL in another project", () => {
  test("connect and IAM login are granted on the instance's project, narrowed to the instance", async () => {
    const { run } = await env(cloudSql(true));
    const onSql = ofType(run, "gcp:projects/iAMMember:IAMMember").filter((g) =>
      String(g.inputs.role).startsWith("roles/cloudsql."),
    );
    expect(onSql.map((g) => `${g.inputs.member} ${g.inputs.role} ${g.inputs.project}`).sort()).toEqual(
      ["entry", "task-handler"]
        .flatMap((id) => [
          `${sa(id)} roles/cloudsql.client ${OTHER_PROJECT}`,
          `${sa(id)} roles/cloudsql.instanceUser ${OTHER_PROJECT}`,
        ])
        .sort(),
    );
    for (const grant of onSql) {
      expect(grant.inputs.condition.expression).toBe(
        `resource.name == "projects/${OTHER_PROJECT}/instances/shop" && resource.type == "sqladmin.googleapis.com/Instance"`,
      );
    }
    expect(onSql.some((g) => g.inputs.project === PROJECT)).toBe(false);
  });
});

describe("database users", () => {
  test("with IAM database login each function logs in as its own account's user; with a password, as mysqlUrl's", async () => {
    const { entry, handler } = await env(cloudSql(true));
    expect(entry.MYSQL_URL).toBe("mysql://archiver-entry@10.10.0.5:3306/shop");
    expect(handler.MYSQL_URL).toBe("mysql://archiver-task-handler@10.10.0.5:3306/shop");
    for (const vars of [entry, handler]) expect(vars.CLOUD_SQL_IAM_AUTH).toBe("true");
    const withPassword = await env(cloudSql(false));
    for (const vars of [withPassword.entry, withPassword.handler]) {
      expect(vars.MYSQL_URL).toBe("mysql://archiver@10.10.0.5:3306/shop");
    }
  });
});

describe("publishers", () => {
  test("get roles/pubsub.publisher on the messages topic only, and nobody else does; none by default", async () => {
    const { run } = await env({
      "table-archiver:publishers": JSON.stringify(["group:ops@example.com", "user:ana@example.com"]),
    });
    const publish = run.resources.filter((r) => r.inputs.role === "roles/pubsub.publisher");
    const byMember = publish.filter((r) => !String(r.inputs.member).includes("gcp-sa-pubsub"));
    expect(byMember.map((r) => `${r.type} ${r.inputs.topic} ${r.inputs.member}`).sort()).toEqual([
      "gcp:pubsub/topicIAMMember:TopicIAMMember archiver-messages group:ops@example.com",
      "gcp:pubsub/topicIAMMember:TopicIAMMember archiver-messages user:ana@example.com",
    ]);
    const none = await env({ "table-archiver:publishers": undefined });
    const onTopic = ofType(none.run, "gcp:pubsub/topicIAMMember:TopicIAMMember").filter(
      (r) => r.inputs.topic === "archiver-messages",
    );
    expect(onTopic).toEqual([]);
  });
});

describe("minRetentionDays", () => {
  test("reaches the entry function and the task handler as MIN_RETENTION_DAYS; unset, the code's default", async () => {
    const { entry, handler } = await env({ "table-archiver:minRetentionDays": "90" });
    for (const vars of [entry, handler]) expect(vars.MIN_RETENTION_DAYS).toBe("90");
    const unset = await env({});
    for (const vars of [unset.entry, unset.handler]) expect(vars.MIN_RETENTION_DAYS).toBeUndefined();
  });
});
