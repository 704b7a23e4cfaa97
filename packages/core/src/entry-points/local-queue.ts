// BullMQ loads when a queue or worker first needs it, not on import.
export * from "../adapters/local-queue/bullmq-task-queue";
export * from "../adapters/local-queue/local-queue-keys";
export * from "../adapters/local-queue/local-worker";
