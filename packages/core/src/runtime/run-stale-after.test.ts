import { describe, expect, it } from "vitest";
import { loadConfig } from "../config";
import { runStaleAfterMs } from "./run-stale-after";

const HOUR = 3_600_000;
const cloudTasks = {
  MYSQL_URL: "mysql://root@127.0.0.1/db",
  REDIS_URL: "redis://127.0.0.1:6379",
  QUEUE: "cloud-tasks",
  CLOUD_TASKS_PROJECT: "p",
  CLOUD_TASKS_LOCATION: "europe-west1",
  TASK_HANDLER_URL: "https://example.test/task",
  TASK_INVOKER_SERVICE_ACCOUNT: "invoker@p.iam.gserviceaccount.com",
};
const window = (env: Record<string, string>) => runStaleAfterMs(loadConfig(env));

describe("runStaleAfterMs", () => {
  it("is RUN_STALE_AFTER_HOURS (12 by default) locally, where a task has no deadline", () => {
    const local = { MYSQL_URL: cloudTasks.MYSQL_URL, REDIS_URL: cloudTasks.REDIS_URL };
    expect(window(local)).toBe(12 * HOUR);
    expect(window({ ...local, RUN_STALE_AFTER_HOURS: "30", TASK_ATTEMPTS: "100" })).toBe(30 * HOUR);
  });

  it("is the hours on Cloud Tasks while the queue's attempts give up sooner", () => {
    // 5 attempts of 600 s, and 4 backoffs of at most an hour: under 5 hours.
    expect(window({ ...cloudTasks, TASK_MAX_ATTEMPTS: "5" })).toBe(12 * HOUR);
  });

  it("is raised to the queue's retry horizon when its attempts outlast the hours", () => {
    expect(window({ ...cloudTasks, TASK_MAX_ATTEMPTS: "20", TASK_DISPATCH_DEADLINE_SECONDS: "1800" })).toBe(
      20 * 0.5 * HOUR + 19 * HOUR,
    );
    // Unset: Cloud Tasks' default of 100 attempts.
    expect(window(cloudTasks)).toBe(100 * (600 / 3600) * HOUR + 99 * HOUR);
  });

  it("never ends a run whose tasks the queue retries without limit", () => {
    expect(window({ ...cloudTasks, TASK_MAX_ATTEMPTS: "-1" })).toBe(Number.POSITIVE_INFINITY);
  });
});
