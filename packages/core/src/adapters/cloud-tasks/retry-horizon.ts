import type { protos } from "@google-cloud/tasks";

type Duration = protos.google.protobuf.IDuration | null | undefined;

/** A protobuf Duration (seconds may be a number, a string or a Long) in ms; 0 when unset. */
export function durationMs(duration: Duration): number {
  if (!duration) return 0;
  return Number(String(duration.seconds ?? 0)) * 1000 + Math.floor(Number(duration.nanos ?? 0) / 1e6);
}

/**
 * How long after creation a task can still be in the queue, given the
 * queue's retry config: the max retry duration when it has one, else the sum
 * of every backoff (doubling from minBackoff, capped at maxBackoff) over
 * maxAttempts; plus a dispatch deadline per attempt, since an attempt may run
 * that long. Infinity when neither is limited (the task never gives up).
 * Overestimates rather than under: a bookkeeping entry must never go stale
 * while its task can still run.
 */
export function retryHorizonMs(
  retry: protos.google.cloud.tasks.v2beta3.IRetryConfig | null | undefined,
  dispatchDeadlineSeconds: number,
): number {
  const attemptMs = dispatchDeadlineSeconds * 1000;
  const maxDuration = durationMs(retry?.maxRetryDuration);
  // Unset (0) means Cloud Tasks' default of 100 attempts; -1 means unlimited.
  const attempts = retry?.maxAttempts || 100;
  if (maxDuration > 0) return maxDuration + 2 * attemptMs;
  if (attempts < 0) return Number.POSITIVE_INFINITY;
  const minBackoff = durationMs(retry?.minBackoff) || 100;
  const maxBackoff = durationMs(retry?.maxBackoff) || 3_600_000;
  let total = attempts * attemptMs;
  for (let retryIndex = 0; retryIndex < attempts - 1; retryIndex++) {
    total += Math.min(maxBackoff, minBackoff * 2 ** retryIndex);
  }
  return total;
}
