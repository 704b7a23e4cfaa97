import type { CloudTasksRetryInfo } from "@table-archiver/core/cloud-tasks";

/**
 * Whether Cloud Tasks makes no attempt after this one: the attempt it is
 * (X-CloudTasks-TaskRetryCount, 0 on the first, counting every earlier
 * dispatch, answered or not) reaches the queue's maxAttempts
 * (TASK_MAX_ATTEMPTS). The queue sets no maxRetryDuration, so maxAttempts
 * alone ends its retries. False when either is unknown (a call not from
 * Cloud Tasks, a deployment that does not say) and for -1, unlimited.
 * Only the task invoker may call the task handler, so the header is the queue's.
 */
export function isLastAttempt(info: CloudTasksRetryInfo, maxAttempts: number | undefined): boolean {
  if (maxAttempts === undefined || maxAttempts < 1 || info.retryCount === undefined) return false;
  return info.retryCount + 1 >= maxAttempts;
}
