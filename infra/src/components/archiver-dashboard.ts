import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { promMetric, WAIT_REASONS } from "./log-metrics";

export interface ArchiverDashboardArgs {
  readonly project: string;
  /** The log-based metrics the charts read; created first, so the charts are never empty by mistake. */
  readonly metrics: readonly pulumi.Resource[];
}

/** A chart's series: one PromQL query each, summed by `by` (table first, so every chart is per table). */
interface Chart {
  readonly title: string;
  readonly series: readonly { readonly query: string }[];
}

const on = (name: string) => `${promMetric(name)}{monitored_resource="cloud_run_revision"}`;
/** A counter's (or a distribution's sum's) increase per hour, one series per label set. */
const hourly = (metric: string, by = "table") => `sum by (${by}) (increase(${on(metric)}[1h]))`;

/** The charts, in reading order: what moved, what stopped it, how runs end. */
export function dashboardCharts(): Chart[] {
  return [
    { title: "Rows copied per hour", series: [{ query: hourly("archiver_rows_copied_sum") }] },
    { title: "Rows deleted per hour", series: [{ query: hourly("archiver_rows_deleted_sum") }] },
    {
      title: "Days refused per hour",
      series: [{ query: hourly("archiver_days_refused", "table, refusal") }],
    },
    {
      title: "Tasks failed for good per hour",
      series: [{ query: hourly("archiver_tasks_failed", "table, kind") }],
    },
    {
      title: "Seconds a cleanup waited per hour, by reason",
      // One metric per reason (log-metrics.ts): label_replace names the reason on its series.
      series: WAIT_REASONS.map((reason) => ({
        query: `label_replace(${hourly(`archiver_cleanup_wait_${reason}_sum`)} / 1000, "reason", "${reason}", "", "")`,
      })),
    },
    {
      title: "Runs ended per day, by mode and result",
      series: [{ query: `sum by (table, mode, result) (increase(${on("archiver_runs_ended")}[1d]))` }],
    },
    {
      title: "Cleanup runs deferred per day",
      series: [{ query: `sum by (table) (increase(${on("archiver_cleanup_runs_deferred")}[1d]))` }],
    },
  ];
}

/** The dashboard's JSON (Cloud Monitoring's Dashboard resource): two charts a row. */
export function dashboardJson(): string {
  const tiles = dashboardCharts().map((chart, i) => ({
    xPos: (i % 2) * 24,
    yPos: Math.floor(i / 2) * 16,
    width: 24,
    height: 16,
    widget: {
      title: chart.title,
      xyChart: {
        dataSets: chart.series.map((s) => ({
          timeSeriesQuery: { prometheusQuery: s.query },
          plotType: "LINE",
        })),
      },
    },
  }));
  return JSON.stringify({ displayName: "table-archiver", mosaicLayout: { columns: 48, tiles } });
}

/** One Cloud Monitoring dashboard of the archiver's metrics, a series per table on every chart. */
export class ArchiverDashboard extends pulumi.ComponentResource {
  readonly dashboard: gcp.monitoring.Dashboard;

  constructor(name: string, args: ArchiverDashboardArgs, opts?: pulumi.ComponentResourceOptions) {
    super("archiver:index:ArchiverDashboard", name, {}, opts);
    this.dashboard = new gcp.monitoring.Dashboard(
      name,
      { project: args.project, dashboardJson: dashboardJson() },
      { parent: this, dependsOn: [...args.metrics] },
    );
    this.registerOutputs({});
  }
}
