export type { Clock } from "./clock";
export type { LogFields, Logger } from "./logger";
export type { CopiedDayRecord, MigrationLedger } from "./migration-ledger";
export type { DayStream, DayStreamStats, SourceDatabase } from "./source-database";
export type { EnqueueResult, TaskQueue } from "./task-queue";
export type { Warehouse } from "./warehouse";
