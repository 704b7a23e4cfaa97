import { createHash } from "node:crypto";
import type { protos } from "@google-cloud/tasks";
import type { TaskPayload } from "../../model/task";
import { QUEUE_NAME } from "../../ports/task-queue";

/** `projects/P/locations/L/queues/jobs-migration`. */
export function queuePath(project: string, location: string): string {
  return `projects/${project}/locations/${location}/queues/${QUEUE_NAME}`;
}

/**
 * The run a task belongs to: the UTC hour it is enqueued in (`2024013117`).
 *
 * Cloud Tasks remembers the name of a task that was completed or deleted (about
 * an hour for queues made through the API, up to 9 days for queue.yaml queues)
 * and answers ALREADY_EXISTS to a new task with that name. Names carry the run
 * so that duplicates within one run (a redelivered Pub/Sub message, two entry
 * instances) collide and are counted as already queued, while a later run can
 * enqueue a day again, for example after its task failed for good. A day
 * enqueued again within the same hour after its task ended is reported as
 * already queued and waits for the next run: a delay, never a lost or a
 * doubled copy (copying a day twice is idempotent).
 */
export function hourlyRun(now: Date): string {
  return now.toISOString().slice(0, 13).replace(/[-T]/g, "");
}

/**
 * The task id: a hash of (kind, table, day, run) first, so ids spread evenly
 * (Cloud Tasks is slower with sequential names), then the kind and day for
 * people reading the queue. Only [A-Za-z0-9_-], 53 characters (limit 500).
 */
export function taskId(task: Pick<TaskPayload, "kind" | "table" | "day">, run: string): string {
  const hash = createHash("sha256").update(`${task.kind}\n${task.table}\n${task.day}\n${run}`).digest("hex");
  return `${hash.slice(0, 40)}-${task.kind}-${task.day.replaceAll("-", "")}`;
}

/**
 * The OIDC audience: the handler URL without query, fragment or trailing
 * slash. For a Cloud Run service that is its base URL; for a function URL
 * (`https://REGION-PROJECT.cloudfunctions.net/NAME`) the path is part of it.
 */
export function handlerAudience(handlerUrl: string): string {
  const url = new URL(handlerUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

export interface TaskTarget {
  readonly project: string;
  readonly location: string;
  readonly handlerUrl: string;
  readonly invokerServiceAccount: string;
  /** 15..1800 (Cloud Tasks' limits for HTTP targets). */
  readonly dispatchDeadlineSeconds: number;
}

/** The createTask request for `task`: POST of its JSON to the handler with an OIDC token. */
export function createTaskRequest(
  target: TaskTarget,
  task: TaskPayload,
  run: string,
): protos.google.cloud.tasks.v2.ICreateTaskRequest {
  const parent = queuePath(target.project, target.location);
  return {
    parent,
    task: {
      name: `${parent}/tasks/${taskId(task, run)}`,
      httpRequest: {
        httpMethod: "POST",
        url: target.handlerUrl,
        headers: { "Content-Type": "application/json" },
        body: Buffer.from(JSON.stringify(task)),
        oidcToken: {
          serviceAccountEmail: target.invokerServiceAccount,
          audience: handlerAudience(target.handlerUrl),
        },
      },
      dispatchDeadline: { seconds: target.dispatchDeadlineSeconds },
    },
  };
}
