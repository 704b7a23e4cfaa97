import type { Config } from "../config";

const HOUR_MS = 3_600_000;
/** Cloud Tasks' attempts per task when the queue does not say (maxAttempts 0, or TASK_MAX_ATTEMPTS unset). */
const CLOUD_TASKS_DEFAULT_ATTEMPTS = 100;
/** Cloud Tasks' default maxBackoff: the longest wait between two attempts unless the queue sets another. */
const CLOUD_TASKS_MAX_BACKOFF_MS = HOUR_MS;

/**
 * How long an open run may hear nothing before the next run of its table
 * and mode ends it as failed (RunDeps.staleAfterMs): RUN_STALE_AFTER_HOURS,
 * raised on Cloud Tasks to the longest its tasks can still be retried by
 * what the configuration knows of the queue: every attempt
 * (TASK_MAX_ATTEMPTS, Cloud Tasks' 100 when unset) running its whole
 * dispatch deadline, an hour of backoff between each two. Unlimited
 * attempts (-1) never give up, and so never leave a run stale. Locally a
 * task has no deadline, so the hours alone decide.
 */
export function runStaleAfterMs(
  config: Pick<Config, "runStaleAfterHours" | "taskMaxAttempts" | "queue">,
): number {
  const hours = config.runStaleAfterHours * HOUR_MS;
  if (config.queue.kind !== "cloud-tasks") return hours;
  const attempts = config.taskMaxAttempts || CLOUD_TASKS_DEFAULT_ATTEMPTS;
  if (attempts < 0) return Number.POSITIVE_INFINITY;
  const horizon =
    attempts * config.queue.dispatchDeadlineSeconds * 1000 + (attempts - 1) * CLOUD_TASKS_MAX_BACKOFF_MS;
  return Math.max(hours, horizon);
}
