import type { Config } from "../../config";
import type { TaskQueue } from "../../ports/task-queue";
import { createRedisClient, type RedisSettings } from "../redis/create-redis-client";
import { createCloudTasksQueue } from "./cloud-tasks-queue";

/** `config.queue` when QUEUE=cloud-tasks: the CLOUD_TASKS_* and TASK_* variables, parsed and present. */
export type CloudTasksQueueSettings = Extract<Config["queue"], { readonly kind: "cloud-tasks" }>;

/**
 * The Cloud Tasks queue for QUEUE=cloud-tasks, with a Redis connection of its
 * own for the bookkeeping (closed with the queue). loadConfig has already
 * refused a configuration that lacks one of the queue's variables.
 */
export function createCloudTasksQueueFromConfig(
  queue: CloudTasksQueueSettings,
  redis: RedisSettings,
): TaskQueue {
  return createCloudTasksQueue({
    project: queue.project,
    location: queue.location,
    handlerUrl: queue.handlerUrl,
    invokerServiceAccount: queue.invokerServiceAccount,
    dispatchDeadlineSeconds: queue.dispatchDeadlineSeconds,
    ledgerRedis: createRedisClient(redis),
    ownsRedis: true,
  });
}
