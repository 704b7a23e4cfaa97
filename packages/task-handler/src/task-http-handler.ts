import type { IncomingHttpHeaders } from "node:http";
import { isFinalTaskError, parseTaskPayload, type TaskPayload } from "@table-archiver/core";
import { cloudTasksRetryInfo } from "@table-archiver/core/cloud-tasks";
import { errorBody, httpStatusOf } from "@table-archiver/core/http";
import type { Runtime } from "@table-archiver/core/runtime";
import { handleTask, type TaskResult } from "./handle-task";
import { isLastAttempt } from "./last-attempt";
import { armLastAttemptDeadline, type DeadlineTimer, realTimer } from "./last-attempt-deadline";
import { logTaskFailure, taskErrorInfo } from "./log-task-failure";
import { countTaskEnd, endingOf, taskEnded } from "./task-ended";

/** The slice of Express's request and response the handler uses. */
export interface HttpRequest {
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly body?: unknown;
}
export interface HttpResponse {
  status(code: number): HttpResponse;
  json(body: unknown): void;
}

export interface TaskHttpHandlerOptions {
  /** What the last attempt's deadline is timed by (armLastAttemptDeadline); real time unless a test's. */
  readonly timer?: DeadlineTimer;
}

/**
 * HTTP front of a task: 200 when done, otherwise the status of the error's
 * code (httpStatusOf: 400 for a payload that can never succeed, 422 when the
 * figures disagree, 503 on a transient failure so the queue retries, 500 for
 * anything else). Cloud Tasks retries every non-2xx answer, so when it is the
 * caller (X-CloudTasks-* headers) a failure that must not be retried is
 * answered 200 with `status: "failed"` and logged as an error instead. On
 * the queue's last attempt the task is counted failed in its run shortly
 * before the dispatch deadline if it is still running (armLastAttemptDeadline).
 */
export function createTaskHttpHandler(
  getRuntime: () => Promise<Runtime>,
  options: TaskHttpHandlerOptions = {},
) {
  const timer = options.timer ?? realTimer;
  return async (req: HttpRequest, res: HttpResponse): Promise<void> => {
    // The dispatch deadline runs from the dispatch: the runtime's start counts against it.
    const startedAt = timer.now();
    if (req.method !== "POST") {
      res
        .status(httpStatusOf("METHOD_NOT_ALLOWED"))
        .json(errorBody("METHOD_NOT_ALLOWED", "use POST with a JSON task"));
      return;
    }
    const runtime = await getRuntime();
    const cloudTask = cloudTasksRetryInfo(req.headers);
    const last = isLastAttempt(cloudTask, runtime.config.taskMaxAttempts);
    // Cloud Tasks counts retries; the first attempt is retry 0.
    const attempt = cloudTask.retryCount === undefined ? undefined : cloudTask.retryCount + 1;
    const fields = { ...cloudTask, body: req.body };
    let task: TaskPayload | undefined;
    try {
      task = parseTaskPayload(req.body);
      const queue = runtime.config.queue;
      const disarm =
        last && queue.kind === "cloud-tasks"
          ? armLastAttemptDeadline(
              runtime,
              { task, dispatchDeadlineSeconds: queue.dispatchDeadlineSeconds, startedAt, attempt, fields },
              timer,
            )
          : undefined;
      const result = await runAndSettle(runtime, task, last, disarm);
      res.status(200).json({ status: "done", kind: result.kind, task: result.task });
    } catch (error) {
      const permanent = isFinalTaskError(error);
      const { code, message } = taskErrorInfo(error);
      logTaskFailure(runtime.logger, {
        error,
        retry: !permanent && !last,
        task,
        attempt,
        fields,
      });
      if (permanent && cloudTask.taskName) {
        res.status(200).json({ status: "failed", ...errorBody(code, message) });
        return;
      }
      res.status(httpStatusOf(code)).json(errorBody(code, message));
    }
  };
}

/**
 * Runs a task (validated by parseTaskPayload) and tells the queue's
 * bookkeeping and the task's run when it is finished for good: done, invalid
 * (InvalidInputError), refused (RefusalError), or failed on the queue's last
 * attempt (`last`, isLastAttempt: a transient error Cloud Tasks will not
 * retry, counted `failed`). Any other failure is left queued for the retry.
 * `disarm` stops the last attempt's deadline as soon as the task finishes.
 */
async function runAndSettle(
  runtime: Runtime,
  task: TaskPayload,
  last: boolean,
  disarm: () => void = () => {},
): Promise<TaskResult> {
  try {
    const result = await handleTask(runtime, task).finally(disarm);
    await runtime.queue.settle(task);
    // A failure to count is thrown, as settle's is: the retry finds the task done and counts it once.
    await taskEnded(runtime, task, endingOf(result));
    return result;
  } catch (error) {
    if (isFinalTaskError(error) || last) {
      await runtime.queue.settle(task);
      await countTaskEnd(runtime, task, { kind: "failed", error });
    }
    throw error;
  }
}
