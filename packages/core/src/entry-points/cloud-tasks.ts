// SDK-free on purpose: the task handler reads retry headers with these, and the
// Cloud Tasks client itself loads only when createRuntime selects QUEUE=cloud-tasks.
export type { CloudTasksQueueOptions } from "../adapters/cloud-tasks/cloud-tasks-queue";
export * from "../adapters/cloud-tasks/retry-info";
