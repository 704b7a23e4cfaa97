import { v2, v2beta3 } from "@google-cloud/tasks";
import { Redis } from "ioredis";
import { describeTaskQueueContract } from "../../testing/task-queue-contract";
import { deleteKeysWithPrefix, testRedisUrl, uniqueName } from "../../testing/test-services";
import { describeSkipped, googleLiveProject, NO_GOOGLE_CREDENTIALS } from "../bigquery/testing/google-live";
import { createCloudTasksQueue } from "./cloud-tasks-queue";
import { queuePath } from "./task-request";

// The shared task queue contract suite against real Cloud Tasks, for
// `pnpm test:live`. Besides GOOGLE_CLOUD_PROJECT and credentials it needs
// CLOUD_TASKS_LOCATION, TASK_HANDLER_URL, TASK_INVOKER_SERVICE_ACCOUNT, Redis
// (TEST_REDIS_URL) and CLOUD_TASKS_LIVE=1, because it uses the queue
// jobs-migration of that project: the queue must be PAUSED (nothing is
// dispatched) and hold no real work, since every task in it is deleted after
// each test. Counts come from Cloud Tasks' stats, which are estimates and may
// lag by a few seconds.

const project = googleLiveProject();
const env = process.env;
const ready =
  env.CLOUD_TASKS_LIVE === "1" &&
  env.CLOUD_TASKS_LOCATION &&
  env.TASK_HANDLER_URL &&
  env.TASK_INVOKER_SERVICE_ACCOUNT;

if (project && ready) {
  const location = env.CLOUD_TASKS_LOCATION ?? "";
  const parent = queuePath(project, location);
  describeTaskQueueContract(`Cloud Tasks (live, ${parent})`, async () => {
    const admin = new v2beta3.CloudTasksClient();
    const [queue] = await admin.getQueue({ name: parent });
    if (String(queue.state) !== "PAUSED") {
      throw new Error(
        `pause ${parent} before the live suite: gcloud tasks queues pause jobs-migration --location=${location}`,
      );
    }
    const tasks = new v2.CloudTasksClient();
    const redis = new Redis(testRedisUrl);
    const prefix = uniqueName("ct_live");
    const subject = createCloudTasksQueue({
      project,
      location,
      handlerUrl: env.TASK_HANDLER_URL ?? "",
      invokerServiceAccount: env.TASK_INVOKER_SERVICE_ACCOUNT ?? "",
      dispatchDeadlineSeconds: 600,
      ledgerRedis: redis,
      bookkeepingPrefix: prefix,
    });
    return {
      queue: subject,
      async cleanup() {
        const [left] = await tasks.listTasks({ parent });
        await Promise.allSettled(left.map((task) => tasks.deleteTask({ name: task.name ?? "" })));
        await subject.close();
        await deleteKeysWithPrefix(redis, prefix);
        await Promise.allSettled([tasks.close(), admin.close(), redis.quit()]);
      },
    };
  });
} else {
  describeSkipped(
    "Cloud Tasks queue (live)",
    project
      ? "skipped: set CLOUD_TASKS_LIVE=1, CLOUD_TASKS_LOCATION, TASK_HANDLER_URL and TASK_INVOKER_SERVICE_ACCOUNT (queue jobs-migration paused)"
      : NO_GOOGLE_CREDENTIALS,
  );
}
