import { createHash } from "node:crypto";
import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { type PolicyMode, policySchedules, type RetentionPolicy } from "@table-archiver/core";

export interface RetentionSchedulesArgs {
  /** Project of the jobs; Cloud Scheduler publishes only to a topic of its job's own project. */
  readonly project: string;
  /** Region of the jobs (the stack's). */
  readonly region: string;
  /** The stack's policies (`retention`), one per table. */
  readonly policies: readonly RetentionPolicy[];
  /** `projects/P/topics/T`: the archiver's topic (MigrationTopic), whose push reaches the entry function. */
  readonly topicId: pulumi.Input<string>;
}

/** A Cloud Scheduler job id: letters, digits, `-` and `_`, at most 500 characters. */
const JOB_ID = /^[A-Za-z0-9_-]{1,500}$/;

/**
 * `archiver-<table>-<mode>`. A table name may hold `$`, which a job name may not: such a name is
 * spelled with `_` and suffixed with a hash of the table, so `a$b` and `a_b` never share a job.
 */
export function scheduleJobName(table: string, mode: PolicyMode): string {
  const plain = `archiver-${table}-${mode}`;
  if (JOB_ID.test(plain)) return plain;
  const hash = createHash("sha256").update(table).digest("hex").slice(0, 8);
  return `archiver-${table.replace(/[^A-Za-z0-9_-]/g, "_")}-${hash}-${mode}`;
}

/**
 * One Cloud Scheduler job per policy and mode (migration; cleanup unless `off`): at the policy's
 * cron, in its time zone, it publishes the ordinary message core's policySchedules gives (the
 * one an operator could publish by hand) to the archiver's topic, with attributes naming the
 * policy and the mode for whoever reads the topic's messages.
 *
 * No IAM grant: a job with a Pub/Sub target publishes as the Cloud Scheduler service agent
 * (service-PROJECT_NUMBER@gcp-sa-cloudscheduler.iam.gserviceaccount.com), whose role
 * roles/cloudscheduler.serviceAgent, granted by Google on the project when the API is enabled,
 * holds pubsub.topics.publish; and the topic must be in the job's project anyway.
 */
export class RetentionSchedules extends pulumi.ComponentResource {
  /** The jobs, by `<table>/<mode>`. */
  readonly jobs = new Map<string, gcp.cloudscheduler.Job>();

  constructor(name: string, args: RetentionSchedulesArgs, opts?: pulumi.ComponentResourceOptions) {
    super("archiver:index:RetentionSchedules", name, {}, opts);
    for (const policy of args.policies) {
      for (const schedule of policySchedules(policy)) {
        const jobName = scheduleJobName(policy.source_table, schedule.mode);
        const job = new gcp.cloudscheduler.Job(
          `${name}-${jobName}`,
          {
            project: args.project,
            region: args.region,
            name: jobName,
            description: `${schedule.mode} of ${policy.source_table} (table-archiver retention policy)`,
            schedule: schedule.cron,
            timeZone: schedule.timeZone,
            pubsubTarget: {
              topicName: args.topicId,
              data: Buffer.from(JSON.stringify(schedule.message)).toString("base64"),
              attributes: { policy: policy.source_table, mode: schedule.mode },
            },
          },
          { parent: this },
        );
        this.jobs.set(`${policy.source_table}/${schedule.mode}`, job);
      }
    }
    this.registerOutputs({});
  }
}
