// The domain: the four use cases, the values they work on, the messages and
// tasks that start them, and the errors they throw. The rest of core has an
// entry point of its own (package.json "exports"):
//
//   @table-archiver/core/ports        the interfaces the use cases depend on
//   @table-archiver/core/config       the environment, parsed (loadConfig, Config)
//   @table-archiver/core/runtime      createRuntime, sharedRuntime: adapters chosen by config
//   @table-archiver/core/http         HTTP answers: one status per error code, HttpError, errorBody
//   @table-archiver/core/logging      the JSON logger
//   @table-archiver/core/mysql, /redis, /local-queue, /cloud-tasks    adapters
//   @table-archiver/core/duckdb, /bigquery                            warehouses (load their SDK on import)
//   @table-archiver/core/testing, /bigquery/testing                   test services and stand-ins
//
// Nothing here, nor in the light entry points, imports the DuckDB, BigQuery or
// Cloud Tasks SDK: createRuntime loads the driver config selects, when it is
// needed, so a bundle carries only what it uses (scripts/core-entry-points.test.ts).

export { type AccessReport, accessReport } from "./domain/access/account-access";
export type { CleanupDeps } from "./domain/cleanup/cleanup-deps";
export type { CleanupSettings } from "./domain/cleanup/cleanup-settings";
export { createChunkPacer, joinChunks } from "./domain/cleanup/day/chunk-pacer";
export { cleanDay, type DayCleanupReport } from "./domain/cleanup/day/clean-day";
export { MAX_DELETE_ROWS } from "./domain/cleanup/day/delete-chunks";
export {
  type CleanupTaskReport,
  cleanPartitionTask,
  type PartitionTaskReport,
} from "./domain/cleanup/partition/clean-partition-task";
export type { DayRefusal } from "./domain/cleanup/refusal";
export { type CleanupSummary, startCleanup } from "./domain/cleanup/start-cleanup";
export { type CopyDayDeps, copyDay, recopyDay } from "./domain/copy/copy-day";
export { cutoffDay } from "./domain/days/cutoff-day";
export type { CleanupMessage } from "./domain/messages/cleanup-message";
export { MAX_MESSAGE_BYTES, refuseOversizedMessage } from "./domain/messages/message-size";
export type { MigrationMessage } from "./domain/messages/migration-message";
export { type ParsedMessage, parseMessage } from "./domain/messages/parse-message";
export { type StartMigrationDeps, startMigration, type TablePlan } from "./domain/migration/start-migration";
export { withDurableCleanup } from "./domain/records/durable-cleanup-state";
export {
  type DurableRecordDeps,
  rebuildAllMigratedDays,
  rebuildMigratedDays,
  withDurableRecord,
} from "./domain/records/durable-day-record";
export { parseCleanupWindow, windowEndAt } from "./domain/retention/cleanup-window";
export {
  type PolicyMode,
  policyCleanupMessage,
  policyMigrationMessage,
  policySchedules,
} from "./domain/retention/policy-messages";
export { parsePolicies, type RetentionPolicy } from "./domain/retention/retention-policy";
export { isRepeatedDelivery } from "./domain/retention/scheduled-delivery";
export { finishRun, type RunDeps } from "./domain/runs/run-deps";
export { startCleanupRun, startMigrationRuns } from "./domain/runs/start-runs";
export { recordTaskEnd, type TaskEnding, taskEndCounts } from "./domain/runs/task-end";
export { parseTaskPayload } from "./domain/tasks/task-payload";
export * from "./errors";
export { addDays, type CalendarDay } from "./model/calendar-day";
export type { DayFigures } from "./model/day-figures";
export { type Destination, type DestinationRules, parseDestination } from "./model/destination";
export { IDENTIFIER, isIdentifier } from "./model/identifier";
export type { LogicalType } from "./model/logical-type";
export { NO_COUNTS } from "./model/run";
export type { Row, SourceColumn, TableSchema } from "./model/table-schema";
export {
  type CleanDayTask,
  type CleanPartitionTask,
  type CopyDayTask,
  isPartitionTask,
  type TaskKind,
  type TaskPayload,
  taskKey,
} from "./model/task";
export { isTimeZone } from "./model/time-zone";
export type { WarehouseDay } from "./model/warehouse-day";
