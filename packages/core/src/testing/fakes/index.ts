export { createMemoryLedger, type MemoryLedger } from "./memory-ledger";
export { createMemorySource, type MemorySource } from "./memory-source";
export { createMemoryTaskQueue, type MemoryTaskQueue } from "./memory-task-queue";
export { sourceColumn } from "./source-column";
