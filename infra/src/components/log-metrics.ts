/**
 * The log-based metrics of the archiver, as data: each counts (or sums a field of) one JSON line
 * the functions already write, labelled by its table. Kept apart from the resources so the
 * dashboard and the alerts name the same metrics and a test can read the filters.
 */

/** The line `cleaned day` and its kin carry `waitedByReason` with these keys (core's WaitReason). */
export const WAIT_REASONS = [
  "replicaLag",
  "threadsRunning",
  "historyLength",
  "redo",
  "pause",
  "rateCap",
] as const;

/** A run's `result` when no day was refused, deferred or failed (core's RunResult; else partial, failed). */
export const RUN_SUCCEEDED = "succeeded";

export interface LogMetricSpec {
  /** The metric's name; Cloud Monitoring calls it logging.googleapis.com/user/<name>. */
  readonly name: string;
  readonly description: string;
  readonly filter: string;
  /** Metric label → the jsonPayload field it is read from. Every metric has `table`. */
  readonly labels: Readonly<Record<string, string>>;
  /** A distribution of this jsonPayload field, instead of a count of lines. */
  readonly value?: { readonly field: string; readonly unit: string };
}

// Gen2 functions are Cloud Run services named as the functions (archiver-functions.ts).
const FUNCTIONS = 'resource.type="cloud_run_revision"';
const TASK_HANDLER = `${FUNCTIONS} AND resource.labels.service_name="archiver-task-handler"`;
const ARCHIVER = `${FUNCTIONS} AND resource.labels.service_name=("archiver-entry" OR "archiver-task-handler")`;
const message = (text: string) => `jsonPayload.message="${text}"`;

/**
 * Every metric. `maxAttempts` is the queue's (queueMaxAttempts; -1 for unlimited): a task has
 * failed for good when its failure is not retried (`retry: false`) or was its last attempt.
 */
export function logMetricSpecs(maxAttempts: number): LogMetricSpec[] {
  const lastAttempt = maxAttempts > 0 ? ` OR jsonPayload.attempt>=${maxAttempts}` : "";
  return [
    {
      name: "archiver_rows_copied",
      description: "Rows copied into the warehouse, one point per day copied (`copied day`).",
      filter: `${TASK_HANDLER} AND ${message("copied day")}`,
      labels: { table: "table" },
      value: { field: "rows", unit: "1" },
    },
    {
      // The day's total, logged once when it is clean: a deferred attempt's rows are counted then.
      name: "archiver_rows_deleted",
      description: "Rows deleted from MySQL, one point per day cleaned (`cleaned day`).",
      filter: `${TASK_HANDLER} AND ${message("cleaned day")}`,
      labels: { table: "table" },
      value: { field: "rowsDeleted", unit: "1" },
    },
    {
      name: "archiver_days_refused",
      description: "Days a cleanup refused to delete, by why (`cleanup refused day; its rows are kept`).",
      filter: `${TASK_HANDLER} AND ${message("cleanup refused day; its rows are kept")}`,
      labels: { table: "table", refusal: "refusal" },
    },
    {
      name: "archiver_tasks_failed",
      description: "Tasks that failed for good: not retried, or on their last attempt (`task failed: ...`).",
      filter: `${TASK_HANDLER} AND jsonPayload.message=~"^task failed: " AND (jsonPayload.retry=false${lastAttempt})`,
      labels: { table: "table", kind: "kind", code: "code" },
    },
    // One metric per reason: the reasons are keys of one field, and a log-based metric
    // extracts one value per line.
    ...WAIT_REASONS.map((reason) => ({
      name: `archiver_cleanup_wait_${reason}`,
      description: `Milliseconds a cleanup attempt waited for ${reason}, one point per attempt.`,
      // Each attempt's own waits: a deferred attempt's count as well as the one that finished.
      filter: `${TASK_HANDLER} AND (${message("cleaned day")} OR ${message("cleanup: day deferred")}) AND jsonPayload.waitedByReason.${reason}>0`,
      labels: { table: "table" },
      value: { field: `waitedByReason.${reason}`, unit: "ms" },
    })),
    {
      name: "archiver_runs_ended",
      description: "Migration and cleanup runs that ended, by mode and result (`run ended`).",
      filter: `${ARCHIVER} AND ${message("run ended")}`,
      labels: { table: "table", mode: "mode", result: "result", policy: "policy" },
    },
    {
      // `deferred` counts the run's days its window closed on (core's RunRecord).
      name: "archiver_cleanup_runs_deferred",
      description:
        "Cleanup runs whose window closed before their days were done (`run ended` with deferred).",
      filter: `${ARCHIVER} AND ${message("run ended")} AND jsonPayload.mode="cleanup" AND jsonPayload.deferred>0`,
      labels: { table: "table", policy: "policy" },
    },
  ];
}

/** How PromQL names a log-based metric (Cloud Monitoring's mapping of logging.googleapis.com/user/…). */
export const promMetric = (name: string) => `logging_googleapis_com:user_${name}`;
