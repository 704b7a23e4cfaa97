import type { Config } from "../config";
import type { CleanupDeps } from "../domain/cleanup/cleanup-deps";
import type { CopyDayDeps } from "../domain/copy/copy-day";
import type { StartMigrationDeps } from "../domain/migration/start-migration";
import type { RunDeps } from "../domain/runs/run-deps";
import type { DestinationRules } from "../model/destination";
import type { Clock } from "../ports/clock";
import type { Logger } from "../ports/logger";
import type { MigrationLedger } from "../ports/migration-ledger";
import type { ScheduledDeliveries } from "../ports/scheduled-deliveries";
import type { SourceDatabase } from "../ports/source-database";
import type { TaskQueue } from "../ports/task-queue";
import type { Warehouse } from "../ports/warehouse";

/**
 * Everything a function needs, built once per process from config. The
 * warehouse opens on first use: migration planning never needs it, and DuckDB
 * allows one writing process per file.
 */
export interface Runtime {
  readonly config: Config;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly source: SourceDatabase;
  /** `mig_<table>` and the copy records as the store (Redis) holds them; copy and cleanup read them through their own ledgers, which recover what the store lost. */
  readonly storeLedger: MigrationLedger;
  readonly queue: TaskQueue;
  readonly destinations: DestinationRules;
  /** What a copy task uses. */
  readonly copy: CopyDayDeps;
  /** What migration mode (planning and enqueueing) uses. */
  readonly migration: StartMigrationDeps;
  /** What cleanup mode and cleanup tasks use, over the same connections. */
  readonly cleanup: CleanupDeps;
  /** Where runs begin (entry), count their tasks and end (task handler, local worker). */
  readonly runs: RunDeps;
  /** Which scheduled runs were delivered already (a scheduler may deliver one twice). */
  readonly deliveries: ScheduledDeliveries;
  warehouse(): Promise<Warehouse>;
  close(): Promise<void>;
}
