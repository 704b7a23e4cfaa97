/** Request headers as Node and the Functions Framework expose them. */
export type RequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** What Cloud Tasks says about the attempt it is making, for the task handler's log line and its last attempt. */
export interface CloudTasksRetryInfo {
  /** Times this task was retried before (0 on the first attempt); undefined when not called by Cloud Tasks. */
  readonly retryCount: number | undefined;
  /** Attempts that got an answer from the handler (X-CloudTasks-TaskExecutionCount). */
  readonly executionCount: number | undefined;
  /** The task id (the last part of the task name). */
  readonly taskName: string | undefined;
  readonly queueName: string | undefined;
}

/**
 * Reads X-CloudTasks-TaskRetryCount, X-CloudTasks-TaskExecutionCount,
 * X-CloudTasks-TaskName and X-CloudTasks-QueueName, whatever their case.
 * An HTTP target cannot tell them from headers any authenticated caller set;
 * only the task invoker may call the task handler, which trusts the retry
 * count to tell the queue's last attempt (a forged count can only end a
 * task's run early as failed, never delete or copy anything).
 */
export function cloudTasksRetryInfo(headers: RequestHeaders): CloudTasksRetryInfo {
  const read = (name: string): string | undefined => {
    for (const [key, value] of Object.entries(headers)) {
      if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : (value as string | undefined);
    }
    return undefined;
  };
  const count = (name: string): number | undefined => {
    const text = read(name);
    return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
  };
  return {
    retryCount: count("x-cloudtasks-taskretrycount"),
    executionCount: count("x-cloudtasks-taskexecutioncount"),
    taskName: read("x-cloudtasks-taskname"),
    queueName: read("x-cloudtasks-queuename"),
  };
}
