import path from "node:path";
import { fileURLToPath } from "node:url";
import { parsePolicies, policySchedules } from "@table-archiver/core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ofType, PROJECT } from "./testing/deploy-dev-stack";
import { deploy, devStackBundles } from "./testing/dev-stack-bundles";
import type { MockRun } from "./testing/pulumi-mocks";
import { readStackFile } from "./testing/stack-file";

// The retention policies of the example stack file become Cloud Scheduler jobs; their
// metrics, alerts and dashboard: observability.test.ts; a broken policy refused: program.test.ts
// and config/retention-config.test.ts.

beforeAll(devStackBundles.make);
afterAll(devStackBundles.remove);

const example = readStackFile(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../stack.example.yaml"),
);
const JOB = "gcp:cloudscheduler/job:Job";
/** A deploy under mocks takes a second or two, several on a loaded machine; some tests deploy twice. */
const DEPLOY_TIMEOUT = 30_000;
const PROJECT_IAM = ["gcp:projects/iAMMember:IAMMember", "gcp:projects/iAMBinding:IAMBinding"];

const decoded = (data: string) => JSON.parse(Buffer.from(data, "base64").toString("utf8")) as unknown;
const projectGrants = (run: MockRun) =>
  run.resources
    .filter((r) => PROJECT_IAM.includes(r.type))
    .map((r) => `${r.inputs.member ?? r.inputs.members} -> ${r.inputs.role}`)
    .sort();

describe("retention schedules", () => {
  test(
    "one job per policy and mode publishes the policy's own message, at its cron, in its time zone",
    async () => {
      const run = await deploy();
      const policies = parsePolicies(JSON.parse(example["table-archiver:retention"] ?? "[]"));
      const expected = policies.flatMap((policy) =>
        policySchedules(policy).map((s) => ({ table: policy.source_table, ...s })),
      );
      // orders: migration and cleanup; audit_log: migration only (its cleanup is off).
      expect(expected.map((s) => `${s.table}/${s.mode}`)).toEqual([
        "orders/migration",
        "orders/cleanup",
        "audit_log/migration",
      ]);
      const jobs = ofType(run, JOB);
      expect(jobs).toHaveLength(expected.length);
      for (const schedule of expected) {
        const job = jobs.find((j) => j.inputs.name === `archiver-${schedule.table}-${schedule.mode}`);
        expect(job, `${schedule.table}/${schedule.mode}`).toBeDefined();
        expect(job?.inputs).toMatchObject({
          project: PROJECT,
          region: "europe-west1",
          schedule: schedule.cron,
          timeZone: schedule.timeZone,
          pubsubTarget: {
            topicName: `projects/${PROJECT}/topics/archiver-messages`,
            attributes: { policy: schedule.table, mode: schedule.mode },
          },
        });
        expect(decoded(job?.inputs.pubsubTarget.data)).toEqual(schedule.message);
      }
      const cleanup = jobs.find((j) => j.inputs.name === "archiver-orders-cleanup");
      expect(decoded(cleanup?.inputs.pubsubTarget.data)).toMatchObject({
        clean_table: "orders",
        dry_run: true,
      });
      expect(cleanup?.inputs.timeZone).toBe("Europe/Paris");
    },
    DEPLOY_TIMEOUT,
  );

  test(
    "a table name a job name cannot hold still gets a valid, distinct job name",
    async () => {
      const policy = (table: string) => ({
        source_table: table,
        destination_table: "t_archive",
        filter_column: "created_at",
        years_to_migrate: 1,
        months_to_migrate: 0,
        migrate_schedule: "0 4 * * *",
        time_zone: "UTC",
        cleanup: "off",
      });
      const run = await deploy({
        "table-archiver:retention": JSON.stringify([policy("a$b"), policy("a_b")]),
      });
      const names = ofType(run, JOB).map((j) => String(j.inputs.name));
      expect(names).toHaveLength(2);
      expect(new Set(names).size).toBe(2);
      for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,500}$/);
    },
    DEPLOY_TIMEOUT,
  );

  test(
    "scheduling grants no project-wide role: the project's grants are the same without any policy",
    async () => {
      const withPolicies = await deploy();
      const without = await deploy({ "table-archiver:retention": undefined });
      expect(ofType(withPolicies, JOB).length).toBeGreaterThan(0);
      expect(ofType(without, JOB)).toEqual([]);
      expect(projectGrants(withPolicies)).toEqual(projectGrants(without));
      for (const grant of projectGrants(withPolicies)) {
        expect(grant).not.toMatch(/cloudscheduler|pubsub/);
      }
    },
    DEPLOY_TIMEOUT,
  );
});
