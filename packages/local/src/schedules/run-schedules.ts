import type { RetentionPolicy } from "@table-archiver/core";
import { asBullmqOptions, bullmqConnection } from "@table-archiver/core/redis";
import type { Runtime } from "@table-archiver/core/runtime";
import type { EntryOutcome } from "@table-archiver/entry";
import type { Job } from "bullmq";
import { deliverMessage } from "../cli/deliver-message";
import { SCHEDULES_QUEUE, type ScheduledRun, scheduledTime, syncSchedules } from "./policy-schedules";

export interface RunningSchedules {
  /** Scheduler ids upserted and removed at start. */
  readonly upserted: readonly string[];
  readonly removed: readonly string[];
  close(): Promise<void>;
}

/**
 * Puts the policies' schedulers in Redis (see syncSchedules), then works the
 * schedules queue: each due job publishes its policy's message to the entry
 * function, exactly as `archiver publish` does, with the minute it was due as
 * its publish time. One run at a time, so two policies' plans never interleave.
 */
export async function startSchedules(
  runtime: Runtime,
  policies: readonly RetentionPolicy[],
  options: { readonly prefix: string; readonly onRun?: (run: ScheduledRun, outcome: EntryOutcome) => void },
): Promise<RunningSchedules> {
  const { Queue, Worker, UnrecoverableError } = await import("bullmq");
  const redis = runtime.config.redis;
  const queue = new Queue(SCHEDULES_QUEUE, {
    connection: asBullmqOptions(bullmqConnection(redis, "producer")),
    prefix: options.prefix,
  });
  queue.on("error", () => {});
  let synced: Awaited<ReturnType<typeof syncSchedules>>;
  try {
    synced = await syncSchedules(queue, policies);
  } finally {
    await queue.close();
  }
  runtime.logger.info("retention schedules set", { ...synced });

  const worker = new Worker(
    SCHEDULES_QUEUE,
    async (job: Job<ScheduledRun>) => {
      const run = job.data;
      const at = scheduledTime(job);
      const outcome = await deliverMessage(runtime, run.message, at);
      runtime.logger.info(`scheduled ${run.mode} of ${run.policy}: ${outcome.outcome}`, {
        policy: run.policy,
        mode: run.mode,
        scheduledFor: at.toISOString(),
      });
      options.onRun?.(run, outcome);
      // The entry function logged why; publishing the same message again could not pass.
      if (outcome.outcome === "rejected") throw new UnrecoverableError(outcome.error.message);
    },
    {
      // As the task worker's: blocking reads need no per-command limit, and the worker waits out Redis.
      connection: asBullmqOptions({
        ...bullmqConnection(redis, "worker"),
        maxRetriesPerRequest: null,
        commandTimeout: undefined,
        socketTimeout: undefined,
      }),
      prefix: options.prefix,
      concurrency: 1,
    },
  );
  worker.on("error", (error) => runtime.logger.error("schedules worker failed", { error }));
  return { ...synced, close: () => worker.close() };
}
