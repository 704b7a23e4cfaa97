export type * from "./cleanup-state";
export type { Clock } from "./clock";
export type * from "./day-deleter";
export type * from "./load-probe";
export type { LogFields, Logger } from "./logger";
export type { CopiedDayRecord, MigrationLedger } from "./migration-ledger";
export type { DayStream, DayStreamStats, SourceDatabase } from "./source-database";
export { type EnqueueResult, QUEUE_NAME, type TaskQueue } from "./task-queue";
export type { Warehouse } from "./warehouse";
