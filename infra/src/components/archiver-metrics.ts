import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { type LogMetricSpec, logMetricSpecs } from "./log-metrics";

export interface ArchiverMetricsArgs {
  /** Project whose logs the metrics read (the functions'). */
  readonly project: string;
  /** The queue's attempts per task (queueMaxAttempts, -1 unlimited): when a failure is for good. */
  readonly maxAttempts: number;
}

/**
 * Buckets of a distribution: powers of two from 1, so a day of 3 rows and one of 30 million
 * each fall in a bucket that tells them apart, with no limit to configure.
 */
const POWERS_OF_TWO = { exponentialBuckets: { numFiniteBuckets: 64, growthFactor: 2, scale: 1 } };

/**
 * The archiver's log-based metrics (log-metrics.ts): rows copied and deleted, days refused,
 * tasks failed for good, time waited by reason, runs ended and cleanup runs deferred, each
 * labelled by table. Read from the JSON lines the functions write, so no code reports them.
 */
export class ArchiverMetrics extends pulumi.ComponentResource {
  /** Every metric; the alerts and the dashboard depend on them, as Monitoring must know a metric first. */
  readonly metrics: gcp.logging.Metric[];

  constructor(name: string, args: ArchiverMetricsArgs, opts?: pulumi.ComponentResourceOptions) {
    super("archiver:index:ArchiverMetrics", name, {}, opts);
    this.metrics = logMetricSpecs(args.maxAttempts).map(
      (spec) =>
        new gcp.logging.Metric(`${name}-${spec.name}`, metricArgs(args.project, spec), { parent: this }),
    );
    this.registerOutputs({});
  }
}

function metricArgs(project: string, spec: LogMetricSpec): gcp.logging.MetricArgs {
  const labels = Object.keys(spec.labels).map((key) => ({ key, valueType: "STRING" }));
  const labelExtractors = Object.fromEntries(
    Object.entries(spec.labels).map(([key, field]) => [key, `EXTRACT(jsonPayload.${field})`]),
  );
  return {
    project,
    name: spec.name,
    description: spec.description,
    filter: spec.filter,
    labelExtractors,
    metricDescriptor: {
      metricKind: "DELTA",
      valueType: spec.value ? "DISTRIBUTION" : "INT64",
      unit: spec.value?.unit ?? "1",
      labels,
    },
    ...(spec.value
      ? { valueExtractor: `EXTRACT(jsonPayload.${spec.value.field})`, bucketOptions: POWERS_OF_TWO }
      : {}),
  };
}
