import type { Job } from "bullmq";
import { parseTaskPayload } from "../../domain/tasks/task-payload";
import { TransientError } from "../../errors";
import type { TaskPayload } from "../../model/task";

/**
 * Which attempt of its job this run is, counting runs a crash or a lost lock
 * interrupted: BullMQ counts every start (attemptsStarted, this one included),
 * while attemptsMade counts only the runs that ended.
 */
export function startedAttempt(job: Job): number {
  return Math.max(job.attemptsStarted ?? 0, job.attemptsMade + 1);
}

/** Which attempt of its job just ended (completed or failed), interrupted runs counted. */
export function endedAttempt(job: Job): number {
  return Math.max(job.attemptsStarted ?? 0, job.attemptsMade);
}

/** The job's attempts are used up, some by runs that never ended; it fails for good. */
export function interruptedTooOften(job: Job, maxAttempts: number): TransientError {
  const interrupted = startedAttempt(job) - 1 - job.attemptsMade;
  const times = interrupted === 1 ? "once" : `${interrupted} times`;
  return new TransientError(
    `job ${job.id ?? "?"} was interrupted ${times} (its worker stopped or lost the job's lock while running it) ` +
      `and has used its ${maxAttempts} attempts`,
  );
}

/** The job's task, or undefined when its data is not a valid task. */
export function taskOf(job: Job): TaskPayload | undefined {
  try {
    return parseTaskPayload(job.data);
  } catch {
    return undefined;
  }
}

export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
