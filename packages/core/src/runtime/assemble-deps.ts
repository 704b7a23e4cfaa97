import type { CleanupDeps } from "../domain/cleanup/cleanup-deps";
import type { CleanupSettings } from "../domain/cleanup/cleanup-settings";
import { type CopyDayDeps, recopyDay } from "../domain/copy/copy-day";
import type { StartMigrationDeps } from "../domain/migration/start-migration";
import type { ThrottleMemory } from "../domain/pacing/throttle-memory";
import { withDurableCleanup } from "../domain/records/durable-cleanup-state";
import { withDurableRecord } from "../domain/records/durable-day-record";
import { runAwareQueue } from "../domain/runs/run-aware-queue";
import type { RunDeps } from "../domain/runs/run-deps";
import type { DestinationRules } from "../model/destination";
import type { AccountCheck } from "../ports/access-check";
import type { CleanupState } from "../ports/cleanup-state";
import type { Clock } from "../ports/clock";
import type { DayDeleter } from "../ports/day-deleter";
import type { LoadProbe } from "../ports/load-probe";
import type { Logger } from "../ports/logger";
import type { MigrationLedger } from "../ports/migration-ledger";
import type { PartitionedTable } from "../ports/partitioned-table";
import type { RateCap } from "../ports/rate-cap";
import type { RunHistory } from "../ports/run-history";
import type { SourceDatabase } from "../ports/source-database";
import type { TaskQueue } from "../ports/task-queue";
import type { Warehouse } from "../ports/warehouse";

/** What a process opens once (createAdapters, or a test's fakes): everything the domain's parts are made of. */
export interface Adapters {
  readonly source: SourceDatabase;
  /** What the source's account may do. */
  readonly account: AccountCheck;
  readonly deleter: DayDeleter;
  readonly partitions: PartitionedTable;
  readonly loadProbe: LoadProbe;
  /** `mig_<table>` and the copy records, as the store (Redis) holds them. */
  readonly storeLedger: MigrationLedger;
  /** The days' cleanup states and leases, as the store (Redis) holds them. */
  readonly storeCleanupState: CleanupState;
  readonly queue: TaskQueue;
  /** The warehouse, opened on first use; a DuckDB file that is not there is created (a copy writes it). */
  readonly warehouse: () => Promise<Warehouse>;
  /** The warehouse as cleanup opens it: one that is not there holds no copy and refuses (default: `warehouse`). */
  readonly existingWarehouse?: () => Promise<Warehouse>;
  readonly logger: Logger;
  readonly clock: Clock;
  /** The live counts of runs (Redis), which the task that ends a run's last task finishes it by. */
  readonly runHistory: RunHistory;
  /** The table-wide rate caps' shared budget (Redis); absent, no cap is enforced. */
  readonly rateCap?: RateCap;
}

/** The settings the domain's parts take from configuration. */
export interface DomainSettings {
  readonly timeZone: string;
  /** How destination names resolve (the default dataset), for copies and for the records of them. */
  readonly destinations: DestinationRules;
  readonly copyBatchRows: number;
  /** Rest per unit of a copy's read time; 0 or absent reads at full speed. */
  readonly copyNiceRatio?: number;
  /** Rows copied per second for a table across every task; 0 or absent caps nothing. */
  readonly copyMaxRowsPerSecond?: number;
  readonly cleanup: CleanupSettings;
  /** Where the warehouse is, in the operator's words. */
  readonly warehouseLabel: string;
  /** What the throttle learns across the days this process cleans; absent, each task starts afresh. */
  readonly throttleMemory?: ThrottleMemory;
  /** Waits between chunks, while throttled and for a copy's pace; tests pass a fake. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** How long an open run may hear nothing before the next run of its table and mode ends it (RunDeps). */
  readonly runStaleAfterMs?: number;
}

/** What each use case runs with. */
export interface DomainDeps {
  readonly copy: CopyDayDeps;
  readonly migration: StartMigrationDeps;
  readonly cleanup: CleanupDeps;
  /** Where runs begin, count their tasks and end (domain/runs). */
  readonly runs: RunDeps;
}

/**
 * Puts the domain's dependencies together from the adapters, the one place
 * that does (the runtime, the test fixtures and the infrastructure's trace
 * all call it). Copy and cleanup read the ledger through the warehouse's
 * durable record, which recovers a copy record the store lost; cleanup's
 * state keeps a started plan there too. Each reads the record through the
 * warehouse it may open: cleanup never creates one.
 */
export function assembleDeps(adapters: Adapters, settings: DomainSettings): DomainDeps {
  const { source, logger, clock, warehouse } = adapters;
  // Every task queued with a run is added to that run first, whoever queues it (see runAwareQueue).
  const queue = runAwareQueue(adapters.queue, adapters.runHistory);
  const { timeZone, destinations } = settings;
  const cleanupWarehouse = adapters.existingWarehouse ?? warehouse;
  const sleep = settings.sleep ? { sleep: settings.sleep } : {};
  const rateCap = adapters.rateCap ? { rateCap: adapters.rateCap } : {};
  const copy: CopyDayDeps = {
    source,
    warehouse,
    ledger: withDurableRecord(adapters.storeLedger, { warehouse, destinations, logger }),
    logger,
    clock,
    timeZone,
    destinations,
    batchRows: settings.copyBatchRows,
    ...(settings.copyNiceRatio === undefined ? {} : { niceRatio: settings.copyNiceRatio }),
    ...(settings.copyMaxRowsPerSecond ? { maxRowsPerSecond: settings.copyMaxRowsPerSecond } : {}),
    ...rateCap,
    ...sleep,
  };
  const durable = { warehouse: cleanupWarehouse, destinations, logger };
  const cleanup: CleanupDeps = {
    source,
    account: adapters.account,
    deleter: adapters.deleter,
    partitions: adapters.partitions,
    loadProbe: adapters.loadProbe,
    warehouse: cleanupWarehouse,
    warehouseLabel: settings.warehouseLabel,
    ledger: withDurableRecord(adapters.storeLedger, durable),
    state: withDurableCleanup(adapters.storeCleanupState, durable),
    queue,
    logger,
    clock,
    timeZone,
    destinations,
    settings: settings.cleanup,
    recopy: (task) => recopyDay(copy, task),
    ...(settings.throttleMemory ? { throttleMemory: settings.throttleMemory } : {}),
    ...rateCap,
    ...sleep,
  };
  const migration: StartMigrationDeps = {
    source,
    queue,
    ledger: adapters.storeLedger,
    logger,
    clock,
    timeZone,
    destinations,
  };
  // A run ends where its last task ends, often a copy: its row goes through the warehouse a copy opens.
  const runs: RunDeps = {
    history: adapters.runHistory,
    warehouse,
    logger,
    clock,
    destinations,
    staleAfterMs: settings.runStaleAfterMs,
  };
  return { copy, migration, cleanup, runs };
}
