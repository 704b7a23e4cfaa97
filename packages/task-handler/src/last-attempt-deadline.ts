import { type TaskPayload, TransientError } from "@table-archiver/core";
import type { LogFields } from "@table-archiver/core/ports";
import type { Runtime } from "@table-archiver/core/runtime";
import { logTaskFailure } from "./log-task-failure";
import { countTaskEnd } from "./task-ended";

/** When to act, and how to wait for it: real time, or a test's hand-moved clock. */
export interface DeadlineTimer {
  /** Milliseconds since some fixed instant. */
  now(): number;
  /** Calls `fire` in `ms` milliseconds (at once when `ms` is 0); the answer cancels it. */
  set(ms: number, fire: () => Promise<void>): () => void;
}

export const realTimer: DeadlineTimer = {
  now: () => Date.now(),
  set(ms, fire) {
    const timer = setTimeout(() => void fire(), ms);
    // A timer never keeps the process up by itself.
    timer.unref();
    return () => clearTimeout(timer);
  },
};

const MAX_MARGIN_MS = 30_000;

/**
 * How long before the queue's dispatch deadline the handler acts: the
 * smaller of a tenth of it and 30 s, enough for Redis and the warehouse to
 * take the run's end, and for a cold start the deadline already ran through.
 */
export function deadlineMarginMs(dispatchDeadlineMs: number): number {
  return Math.min(dispatchDeadlineMs / 10, MAX_MARGIN_MS);
}

/** What arming the deadline of one attempt needs to know. */
export interface LastAttempt {
  readonly task: TaskPayload;
  /** Cloud Tasks' dispatch deadline (TASK_DISPATCH_DEADLINE_SECONDS), counted from `startedAt`. */
  readonly dispatchDeadlineSeconds: number;
  /** `timer.now()` as the request came in. */
  readonly startedAt: number;
  /** The attempt's number (1 for the first), when known. */
  readonly attempt: number | undefined;
  /** The runner's own fields for the failure line (the Cloud Tasks headers, the body). */
  readonly fields: LogFields;
}

/**
 * On the queue's last attempt of a task: a timer that, shortly before Cloud
 * Tasks' dispatch deadline (deadlineMarginMs), counts the task failed in its
 * run if it is still running and logs the failure as any final one
 * (`task failed: ...`, `retry: false`). Past that deadline Cloud Tasks gives
 * up on the attempt while the function may still run, and no attempt comes
 * after it: without this, the task would never report its end and its run
 * would stay open. The task is left to go on. Should it then finish, done or
 * failed, its report counts nothing more, since a task counts once in its run;
 * that is safe, for what the task really did is in the day's own records (a
 * copied day in the ledger, a cleaned one in its cleanup state), and the
 * run's row says it ran out of time. Answers the call that disarms the
 * timer, made as soon as the task finishes.
 */
export function armLastAttemptDeadline(
  runtime: Runtime,
  attempt: LastAttempt,
  timer: DeadlineTimer = realTimer,
): () => void {
  const deadlineMs = attempt.dispatchDeadlineSeconds * 1000;
  const fireAt = attempt.startedAt + deadlineMs - deadlineMarginMs(deadlineMs);
  return timer.set(Math.max(0, fireAt - timer.now()), async () => {
    const error = new TransientError(
      `the task ran out of time on its queue's last attempt: Cloud Tasks gives up on it at its dispatch ` +
        `deadline of ${attempt.dispatchDeadlineSeconds} s (TASK_DISPATCH_DEADLINE_SECONDS) and makes no other`,
    );
    const { task, fields } = attempt;
    logTaskFailure(runtime.logger, { error, retry: false, task, attempt: attempt.attempt, fields });
    await countTaskEnd(runtime, task, { kind: "failed", error });
  });
}
