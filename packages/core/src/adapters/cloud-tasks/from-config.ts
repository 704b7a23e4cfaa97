import type { Config } from "../../config";
import { ConfigError } from "../../errors";
import type { TaskQueue } from "../../ports/task-queue";
import { createRedisClient } from "../redis/create-redis-client";
import { createCloudTasksQueue } from "./cloud-tasks-queue";

/**
 * The Cloud Tasks queue for QUEUE=cloud-tasks, with a Redis connection of its
 * own for the bookkeeping (closed with the queue). loadConfig already refused
 * a configuration that lacks a variable; the check here only narrows types.
 */
export function createCloudTasksQueueFromConfig(config: Config): TaskQueue {
  const env = config.env;
  const project = env.CLOUD_TASKS_PROJECT;
  const location = env.CLOUD_TASKS_LOCATION;
  const handlerUrl = env.TASK_HANDLER_URL;
  const invokerServiceAccount = env.TASK_INVOKER_SERVICE_ACCOUNT;
  if (!project || !location || !handlerUrl || !invokerServiceAccount) {
    throw new ConfigError(
      "invalid configuration: CLOUD_TASKS_PROJECT, CLOUD_TASKS_LOCATION, TASK_HANDLER_URL and TASK_INVOKER_SERVICE_ACCOUNT are required when QUEUE=cloud-tasks",
    );
  }
  return createCloudTasksQueue({
    project,
    location,
    handlerUrl,
    invokerServiceAccount,
    dispatchDeadlineSeconds: env.TASK_DISPATCH_DEADLINE_SECONDS,
    ledgerRedis: createRedisClient(config.redis),
    ownsRedis: true,
  });
}
