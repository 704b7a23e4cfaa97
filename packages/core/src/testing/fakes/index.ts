export { createMemoryAccountCheck, type MemoryAccountCheck } from "./memory-account-check";
export { createMemoryCleanupState, type MemoryCleanupState } from "./memory-cleanup-state";
export { createMemoryDayDeleter, type MemoryDayDeleter } from "./memory-day-deleter";
export { createMemoryLedger, type MemoryLedger } from "./memory-ledger";
export { createMemoryLoadProbe, type MemoryLoadProbe } from "./memory-load-probe";
export { createMemorySource, type MemorySource } from "./memory-source";
export { createMemoryTaskQueue, type MemoryTaskQueue } from "./memory-task-queue";
export { sourceColumn } from "./source-column";
export { createUnpartitionedTable } from "./unpartitioned-table";
