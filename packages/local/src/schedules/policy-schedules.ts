import { type PolicyMode, policySchedules, type RetentionPolicy } from "@table-archiver/core";
import type { Job, JobSchedulerTemplateOptions, Queue } from "bullmq";

/**
 * The BullMQ queue of the policies' schedules, under LOCAL_QUEUE_PREFIX beside
 * `jobs-migration`: a queue of its own, so its jobs are never counted as tasks
 * (the task count reaching 0 still means a run is finished).
 */
export const SCHEDULES_QUEUE = "archiver-schedules";

/** What a schedule's job carries: the ordinary message of its policy and mode (see policySchedules). */
export interface ScheduledRun {
  readonly policy: string;
  readonly mode: PolicyMode;
  readonly message: Record<string, unknown>;
}

/** One scheduler per policy and mode; `|` rather than `:`, which BullMQ uses in its own keys. */
export function schedulerId(table: string, mode: PolicyMode): string {
  return `${table}|${mode}`;
}

/**
 * A run that cannot reach MySQL or Redis is tried again, as Pub/Sub redelivers
 * in production; finished runs are not kept (the log says what each did).
 */
const RUN_OPTIONS: JobSchedulerTemplateOptions = {
  attempts: 3,
  backoff: { type: "exponential", delay: 10_000 },
  removeOnComplete: true,
  removeOnFail: { age: 7 * 24 * 3600 },
};

/**
 * Makes the schedulers in Redis those the policies declare: one upserted per
 * policy and mode, always in the policy's time zone, and every other one (a
 * policy or a cleanup since removed from the file) removed.
 */
export async function syncSchedules(
  queue: Queue,
  policies: readonly RetentionPolicy[],
): Promise<{ readonly upserted: string[]; readonly removed: string[] }> {
  const upserted: string[] = [];
  for (const policy of policies) {
    for (const { mode, cron, timeZone, message } of policySchedules(policy)) {
      const id = schedulerId(policy.source_table, mode);
      const data: ScheduledRun = { policy: policy.source_table, mode, message };
      await queue.upsertJobScheduler(
        id,
        { pattern: cron, tz: timeZone },
        { name: mode, data, opts: RUN_OPTIONS },
      );
      upserted.push(id);
    }
  }
  const removed: string[] = [];
  for (const scheduler of await queue.getJobSchedulers(0, -1)) {
    if (upserted.includes(scheduler.key)) continue;
    await queue.removeJobScheduler(scheduler.key);
    removed.push(scheduler.key);
  }
  return { upserted, removed };
}

/**
 * The minute a scheduler's job was due: BullMQ names it
 * `repeat:<scheduler>:<due ms>` and keeps the same instant in `prevMillis`.
 * A retried attempt or a job promoted early keeps that minute.
 */
export function scheduledTime(job: Pick<Job, "id" | "opts" | "timestamp">): Date {
  const due = job.opts.prevMillis ?? Number(job.id?.split(":").at(-1));
  return new Date(Number.isFinite(due) && due > 0 ? due : job.timestamp);
}
