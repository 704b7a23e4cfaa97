import type { TaskKind, TaskPayload } from "../../model/task";
import { taskKey } from "../../model/task";
import { QUEUE_NAME } from "../../ports/task-queue";

/** Backoff type the jobs carry; the local worker computes its delays (see startLocalWorker). */
export const LOCAL_BACKOFF_TYPE = "archiver-exponential";

/**
 * BullMQ job id of a task: `taskKey` with `:` replaced by `|`, because BullMQ
 * refuses (or misreads as a repeat key) custom ids with colons. Tables are
 * identifiers and days are `YYYY-MM-DD`, so neither contains `|` and the id is
 * unique per (kind, table, day).
 */
export function localJobId(task: Pick<TaskPayload, "kind" | "table" | "day">): string {
  return taskKey(task).replaceAll(":", "|");
}

/** Every job id of (kind, table) starts with this; the day follows. */
export function localJobIdPrefix(kind: TaskKind, table: string): string {
  return `${kind}|${table}|`;
}

/** Redis key names under LOCAL_QUEUE_PREFIX, laid out as BullMQ lays out its own. */
export function localQueueKeys(prefix: string) {
  const base = `${prefix}:${QUEUE_NAME}`;
  return {
    /** Prefix of a job's hash: `<base>:<jobId>`. */
    job: `${base}:`,
    failed: `${base}:failed`,
    completed: `${base}:completed`,
    /** The queued-days book of (kind, table): days that may have a live job (see createQueuedDaysBook). */
    queuedDays: (kind: TaskKind, table: string) => `${base}:archiver-days:${kind}:${table}`,
  };
}
