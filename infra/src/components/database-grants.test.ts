import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { deploy, devStackBundles } from "../testing/dev-stack-bundles";

// The MySQL grants the program prints for each function's database user (`pulumi stack output databaseGrants`).

beforeAll(devStackBundles.make);
afterAll(devStackBundles.remove);

const INSTANCE = "shop-prod:europe-west1:shop";
const iamLogin = {
  "table-archiver:mysqlTlsCa": undefined,
  "table-archiver:cloudSqlInstance": INSTANCE,
  "table-archiver:cloudSqlIamAuth": "true",
  "table-archiver:mysqlPassword": undefined,
};

describe("database grants", () => {
  test("with IAM login the entry function's user holds SELECT on the database and nothing else", async () => {
    const run = await deploy(iamLogin);
    const grants = run.outputs.databaseGrants as { functions: string[]; user: string; grants: string[] }[];
    expect(grants.find((g) => g.functions.includes("entry"))).toEqual({
      functions: ["entry"],
      user: "'archiver-entry'@'%'",
      grants: ["GRANT SELECT ON `shop`.* TO 'archiver-entry'@'%';"],
      onEachReplica: [],
    });
    expect(grants.find((g) => g.functions.includes("taskHandler"))).toEqual({
      functions: ["taskHandler"],
      user: "'archiver-task-handler'@'%'",
      grants: [
        "GRANT SELECT, DELETE, TRIGGER ON `shop`.* TO 'archiver-task-handler'@'%';",
        "GRANT PROCESS ON *.* TO 'archiver-task-handler'@'%';",
      ],
      onEachReplica: [],
    });
    // Each statement names the user its function logs in as, and the entry's never writes.
    for (const { user, grants: statements } of grants) {
      for (const statement of statements) expect(statement.endsWith(` TO ${user};`)).toBe(true);
    }
    expect(grants[0]?.grants.join(" ")).not.toMatch(/DELETE|TRIGGER|PROCESS|INSERT|UPDATE|ALTER|DROP/);
  });

  test("the replica-lag throttle adds its signal's grant on each replica, to the task handler's user only", async () => {
    const run = await deploy({
      ...iamLogin,
      "table-archiver:functionEnv": JSON.stringify({ CLEANUP_MAX_REPLICA_LAG_SECONDS: "30" }),
      "table-archiver:cleanupReplicaUrls": "mysql://archiver@10.10.0.6:3306/shop",
    });
    const grants = run.outputs.databaseGrants as { functions: string[]; onEachReplica: string[] }[];
    expect(grants.map((g) => [g.functions, g.onEachReplica])).toEqual([
      [["entry"], []],
      [["taskHandler"], ["GRANT REPLICATION CLIENT ON *.* TO 'archiver-task-handler'@'%';"]],
    ]);
  });

  test("with a password both functions are mysqlUrl's user, which takes the task handler's grants", async () => {
    const run = await deploy();
    expect(run.outputs.databaseGrants).toEqual([
      {
        functions: ["entry", "taskHandler"],
        user: "'archiver'@'%'",
        grants: [
          "GRANT SELECT, DELETE, TRIGGER ON `shop`.* TO 'archiver'@'%';",
          "GRANT PROCESS ON *.* TO 'archiver'@'%';",
        ],
        onEachReplica: [],
      },
    ]);
  });
});
