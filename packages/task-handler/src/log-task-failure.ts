import { archiverErrorCode, messageOf, type TaskPayload } from "@table-archiver/core";
import type { LogFields, Logger } from "@table-archiver/core/ports";

/** What a failed task's error says, judged by its `code` and `reason`, not its class. */
export interface TaskErrorInfo {
  /** INVALID_INPUT, VERIFICATION_FAILED, TRANSIENT, INVALID_CONFIG, or INTERNAL for anything else. */
  readonly code: string;
  /** Why a day was refused (RefusalError's `reason`), when the error carries one. */
  readonly reason: string | undefined;
  readonly message: string;
}

/**
 * Reads an error the way both task runners report it. An error that crossed
 * the BullMQ worker, or came from another copy of the core package, may not
 * be an instance of the core's classes: its `code` and `reason` still count.
 */
export function taskErrorInfo(error: unknown): TaskErrorInfo {
  const fields = (typeof error === "object" && error !== null ? error : {}) as { reason?: unknown };
  const code = archiverErrorCode(error);
  const reason = typeof fields.reason === "string" && fields.reason !== "" ? fields.reason : undefined;
  const message = messageOf(error);
  return { code, reason, message };
}

/** One failed attempt of a task, as `logTaskFailure` logs it. */
export interface TaskFailure {
  readonly error: unknown;
  /** Whether the task will run again (the queue retries it). */
  readonly retry: boolean;
  /** The task, when the body was a valid one; its kind, table and day are logged. */
  readonly task?: TaskPayload | undefined;
  /** This attempt's number (1 for the first), when the runner knows it. */
  readonly attempt?: number | undefined;
  /** Attempts the queue makes at most, when the runner knows it. */
  readonly maxAttempts?: number | undefined;
  /** Fields of the runner's own (Cloud Tasks headers, the request body, the job id). */
  readonly fields?: LogFields;
}

/**
 * Logs one failed attempt of a task as one JSON line, the same from the HTTP
 * function and from the local worker: message `task failed: <error message>`
 * with `code`, `reason` (a refused day's), `retry`, the task's `kind`,
 * `table` and `day`, and `attempt` / `maxAttempts` when known. A failure that
 * is retried is logged as well as one that is final (`retry: false`), so every
 * attempt leaves a line.
 */
export function logTaskFailure(logger: Logger, failure: TaskFailure): void {
  const { code, reason, message } = taskErrorInfo(failure.error);
  const { task } = failure;
  const line: Record<string, unknown> = {
    code,
    ...(reason === undefined ? {} : { reason }),
    retry: failure.retry,
    ...(task ? { kind: task.kind, table: task.table, day: task.day } : {}),
    ...(failure.attempt === undefined ? {} : { attempt: failure.attempt }),
    ...(failure.maxAttempts === undefined ? {} : { maxAttempts: failure.maxAttempts }),
  };
  // The runner's own fields come after, and never replace the ones above.
  for (const [name, value] of Object.entries(failure.fields ?? {})) {
    if (!(name in line)) line[name] = value;
  }
  logger.error(`task failed: ${message}`, line);
}
