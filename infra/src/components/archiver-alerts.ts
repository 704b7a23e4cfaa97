import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import type { RetentionPolicy } from "@table-archiver/core";
import { promMetric, RUN_SUCCEEDED } from "./log-metrics";
import { schedulePeriodSeconds } from "./schedule-period";

export interface ArchiverAlertsArgs {
  readonly project: string;
  /** `alertEmails`: each becomes an e-mail notification channel every alert notifies. */
  readonly emails: readonly string[];
  /** The stack's retention policies: each gets its own "stalled" and "deferred" alert. */
  readonly policies: readonly RetentionPolicy[];
  /** The log-based metrics the conditions read; Monitoring refuses a condition on an unknown one. */
  readonly metrics: readonly pulumi.Resource[];
}

/** Periods without a successful migration before a table's alert fires. */
export const STALLED_PERIODS = 2;
/** Cleanup runs deferred in a row (approximated: within that many periods) before its alert fires. */
export const DEFERRED_PERIODS = 3;

const markdown = (content: string) => ({ content, mimeType: "text/markdown" });
const selector = (name: string, labels: Record<string, string>) =>
  `${promMetric(name)}{${Object.entries({ monitored_resource: "cloud_run_revision", ...labels })
    .map(([key, value]) => `${key}="${value}"`)
    .join(",")}}`;

/**
 * What reaches the inbox: e-mail channels from `alertEmails`, and the alerting policies on the
 * archiver's log-based metrics (log-metrics.ts).
 *
 * - a task failed for good, and a day refused: a threshold (> 0 in 5 minutes), by table;
 * - per policy, no successful migration in two of its schedule's periods, and (unless cleanup
 *   is off) a cleanup deferred three periods running. Both are PromQL conditions, not
 *   conditionAbsent / conditionThreshold: a metric-absence condition waits at most 23.5 hours
 *   (Cloud Monitoring's limit), and a nightly schedule needs two days. The period is
 *   schedulePeriodSeconds' (the longest gap between runs).
 */
export class ArchiverAlerts extends pulumi.ComponentResource {
  readonly channels: gcp.monitoring.NotificationChannel[];
  readonly policies: gcp.monitoring.AlertPolicy[] = [];

  constructor(name: string, args: ArchiverAlertsArgs, opts?: pulumi.ComponentResourceOptions) {
    super("archiver:index:ArchiverAlerts", name, {}, opts);
    const { project } = args;
    this.channels = args.emails.map(
      (email) =>
        new gcp.monitoring.NotificationChannel(
          `${name}-email-${email}`,
          {
            project,
            type: "email",
            displayName: `table-archiver: ${email}`,
            labels: { email_address: email },
          },
          { parent: this },
        ),
    );
    const notificationChannels = this.channels.map((channel) => channel.name);
    const alert = (id: string, policy: Omit<gcp.monitoring.AlertPolicyArgs, "combiner">) =>
      this.policies.push(
        new gcp.monitoring.AlertPolicy(
          `${name}-${id}`,
          { ...policy, project, combiner: "OR", notificationChannels },
          { parent: this, dependsOn: [...args.metrics] },
        ),
      );

    alert("task-failed", {
      displayName: "table-archiver: a task failed for good",
      documentation: markdown(
        "A copy or cleanup task of the table failed and will not be retried. Its day is left as it was: " +
          "read the `task failed:` line of `archiver-task-handler` for the reason, fix it, and publish the " +
          "table's message again (docs/retention.md).",
      ),
      conditions: [perTableCount("a task failed for good", "archiver_tasks_failed")],
    });
    alert("day-refused", {
      displayName: "table-archiver: a cleanup refused a day",
      documentation: markdown(
        "A cleanup refused to delete a day; its rows are kept. The `cleanup refused day` line names the " +
          "refusal (a count that disagrees, a copy missing...): see docs/cleanup.md.",
      ),
      conditions: [perTableCount("a day refused", "archiver_days_refused")],
    });

    for (const policy of args.policies) {
      const table = policy.source_table;
      const period = schedulePeriodSeconds(policy.migrate_schedule, policy.time_zone);
      alert(`stalled-${table}`, {
        displayName: `table-archiver: no successful migration of ${table}`,
        documentation: markdown(
          `No migration run of \`${table}\` ended with result \`${RUN_SUCCEEDED}\` in ${STALLED_PERIODS} periods ` +
            `of its schedule (\`${policy.migrate_schedule}\`, ${policy.time_zone}). Check the Cloud Scheduler ` +
            "job and the entry function's logs.",
        ),
        conditions: [
          {
            displayName: `no successful migration of ${table} in ${STALLED_PERIODS * period}s`,
            // Absent for one period, and still absent a period later: two periods after the last
            // success. Not absent over two periods at once, which a new stack is from its first
            // minute: this way it has one period for its first run before anyone is told.
            conditionPrometheusQueryLanguage: {
              query: `absent_over_time(${selector("archiver_runs_ended", { table, mode: "migration", result: RUN_SUCCEEDED })}[${period}s])`,
              duration: `${(STALLED_PERIODS - 1) * period}s`,
            },
          },
        ],
      });
      if (policy.cleanup !== "off" && policy.cleanup_schedule) {
        const cleanupPeriod = schedulePeriodSeconds(policy.cleanup_schedule, policy.time_zone);
        alert(`deferred-${table}`, {
          displayName: `table-archiver: cleanup of ${table} deferred ${DEFERRED_PERIODS} times`,
          documentation: markdown(
            `${DEFERRED_PERIODS} cleanup runs of \`${table}\` within ${DEFERRED_PERIODS} periods of its schedule ` +
              `(\`${policy.cleanup_schedule}\`) stopped at the window's end with days left: the window ` +
              "(`cleanup_window`) is too short for the rate, or the throttles hold it back.",
          ),
          conditions: [
            {
              displayName: `cleanup of ${table} deferred ${DEFERRED_PERIODS} times`,
              conditionPrometheusQueryLanguage: {
                query: `sum(increase(${selector("archiver_cleanup_runs_deferred", { table })}[${DEFERRED_PERIODS * cleanupPeriod}s])) >= ${DEFERRED_PERIODS}`,
                duration: "0s",
              },
            },
          ],
        });
      }
    }
    this.registerOutputs({});
  }
}

/** More than none of a counter in five minutes, one series per table. */
function perTableCount(displayName: string, metric: string) {
  return {
    displayName,
    conditionThreshold: {
      filter: `metric.type="logging.googleapis.com/user/${metric}" AND resource.type="cloud_run_revision"`,
      comparison: "COMPARISON_GT",
      thresholdValue: 0,
      duration: "0s",
      aggregations: [
        {
          alignmentPeriod: "300s",
          perSeriesAligner: "ALIGN_SUM",
          crossSeriesReducer: "REDUCE_SUM",
          groupByFields: ["metric.label.table"],
        },
      ],
      trigger: { count: 1 },
    },
  };
}
