import { existsSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import pMemoize from "p-memoize";
import { createJsonLogger } from "../adapters/logging/json-logger";
import { createMysqlAccountCheck } from "../adapters/mysql/mysql-account-check";
import { createMysqlDayDeleter } from "../adapters/mysql/mysql-day-deleter";
import { createMysqlLoadProbe } from "../adapters/mysql/mysql-load-probe";
import { createMysqlPartitionedTable } from "../adapters/mysql/mysql-partitioned-table";
import { createMysqlSourceDatabase } from "../adapters/mysql/mysql-source-database";
import { mysqlTlsOptions } from "../adapters/mysql/mysql-tls-options";
import { openMysqlPool } from "../adapters/mysql/open-mysql-pool";
import { createRedisClient } from "../adapters/redis/create-redis-client";
import { createRedisCleanupState } from "../adapters/redis/redis-cleanup-state";
import { createRedisMigrationLedger } from "../adapters/redis/redis-migration-ledger";
import { createRedisRateCap } from "../adapters/redis/redis-rate-cap";
import { createRedisRunHistory } from "../adapters/redis/redis-run-history";
import { createRedisScheduledDeliveries } from "../adapters/redis/redis-scheduled-deliveries";
import type { Config } from "../config";
import { createThrottleMemory } from "../domain/pacing/throttle-memory";
import { RefusalError } from "../errors";
import type { Logger } from "../ports/logger";
import type { TaskQueue } from "../ports/task-queue";
import type { Warehouse } from "../ports/warehouse";
import { type Adapters, assembleDeps } from "./assemble-deps";
import { runStaleAfterMs } from "./run-stale-after";
import type { Runtime } from "./runtime";

export interface RuntimeOptions {
  readonly logger?: Logger;
  readonly clock?: () => Date;
}

/** Builds the adapters config selects, and the domain's parts from them (assembleDeps). */
export async function createRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const adapters = await createAdapters(config, options);
  const { logger, clock, source, queue, storeLedger, loadProbe } = adapters;
  const destinations = destinationRules(config);
  const deps = assembleDeps(adapters, {
    timeZone: config.timeZone,
    destinations,
    copyBatchRows: config.copyBatchRows,
    copyNiceRatio: config.copyNiceRatio,
    copyMaxRowsPerSecond: config.copyMaxRowsPerSecond,
    cleanup: config.cleanup,
    warehouseLabel: warehouseLabel(config),
    throttleMemory: createThrottleMemory(config.cleanup.niceRatio, (ms) => sleep(ms)),
    runStaleAfterMs: runStaleAfterMs(config),
  });
  return {
    config,
    logger,
    clock,
    source,
    storeLedger,
    queue,
    destinations,
    ...deps,
    deliveries: adapters.deliveries,
    warehouse: adapters.warehouse,
    async close() {
      await Promise.allSettled([queue.close(), loadProbe.close(), source.close(), adapters.closeWarehouse()]);
      adapters.closeStore();
    },
  };
}

/** The adapters a process opens, each once: drivers load lazily, so a bundle carries only what it uses. */
async function createAdapters(config: Config, options: RuntimeOptions) {
  const logger = options.logger ?? createJsonLogger({ level: config.logLevel });
  const pool = await openMysqlPool(config);
  const redis = createRedisClient(config.redis);
  const queue = await createQueue(config);
  const loadProbe = createMysqlLoadProbe({
    primary: pool,
    replicaUrls: config.cleanup.replicaUrls,
    heartbeatTable: config.cleanup.replicaHeartbeatTable,
    password: config.mysql.password,
    // Replicas are reached by their URLs, with the primary's TLS settings (not through the Cloud SQL connector).
    poolOptions: mysqlTlsOptions(config.mysql.tls),
  });
  // Opened on first use: migration planning never needs it, and DuckDB allows one writing process per file.
  const opened = new Map<undefined, Warehouse>();
  const warehouse = pMemoize(() => createWarehouse(config), { cache: opened });
  return {
    logger,
    clock: options.clock ?? (() => new Date()),
    source: createMysqlSourceDatabase(pool),
    account: createMysqlAccountCheck(pool),
    deleter: createMysqlDayDeleter(pool),
    partitions: createMysqlPartitionedTable(pool),
    loadProbe,
    storeLedger: createRedisMigrationLedger(redis),
    storeCleanupState: createRedisCleanupState(redis),
    runHistory: createRedisRunHistory(redis, { prefix: runHistoryPrefix(config) }),
    rateCap: createRedisRateCap(redis),
    deliveries: createRedisScheduledDeliveries(redis),
    queue,
    warehouse,
    // Cleanup never creates a warehouse: one that is not there refuses the cleanup.
    existingWarehouse: () => openExistingWarehouse(config, warehouse),
    closeWarehouse: async () => opened.get(undefined)?.close(),
    closeStore: () => redis.disconnect(),
  } satisfies Adapters & Record<string, unknown>;
}

/**
 * Where runs' live counts are kept in Redis: beside the local queue, under its
 * prefix (a test's or a demo's queue takes its runs with it); `archiver` with
 * Cloud Tasks, as the other keys of the deployment.
 */
function runHistoryPrefix(config: Config): string {
  return config.queue.kind === "local" ? config.queue.prefix : "archiver";
}

function destinationRules(config: Config) {
  return { defaultDataset: config.warehouse.dataset, allowProject: config.warehouse.kind === "bigquery" };
}

async function createQueue(config: Config): Promise<TaskQueue> {
  const queue = config.queue;
  if (queue.kind === "cloud-tasks") {
    // Loaded only for this queue, so the local stack never loads the Cloud Tasks library. The queue
    // keeps its bookkeeping in a Redis connection of its own, closed with it.
    const { createCloudTasksQueue } = await import("../adapters/cloud-tasks/cloud-tasks-queue");
    return createCloudTasksQueue({
      project: queue.project,
      location: queue.location,
      handlerUrl: queue.handlerUrl,
      invokerServiceAccount: queue.invokerServiceAccount,
      dispatchDeadlineSeconds: queue.dispatchDeadlineSeconds,
      ledgerRedis: createRedisClient(config.redis),
      ownsRedis: true,
    });
  }
  const { createLocalTaskQueue } = await import("../adapters/local-queue/bullmq-task-queue");
  return createLocalTaskQueue({ redis: config.redis, prefix: queue.prefix, attempts: queue.attempts });
}

/** Where the warehouse is, in the words of the variables that say so. */
function warehouseLabel(config: Config): string {
  const warehouse = config.warehouse;
  return warehouse.kind === "duckdb"
    ? `the DuckDB file ${warehouse.path} (DUCKDB_PATH), dataset ${warehouse.dataset} (WAREHOUSE_DATASET)`
    : `BigQuery project ${warehouse.project} (BIGQUERY_PROJECT), dataset ${warehouse.dataset} (WAREHOUSE_DATASET)`;
}

/**
 * Cleanup only reads the warehouse: a DuckDB file that does not exist holds no
 * copy, and opening it would create an empty one that hides the mistake.
 */
function openExistingWarehouse(config: Config, open: () => Promise<Warehouse>): Promise<Warehouse> {
  const warehouse = config.warehouse;
  if (warehouse.kind === "duckdb" && !warehouse.path.startsWith(":memory:") && !existsSync(warehouse.path)) {
    return Promise.reject(
      new RefusalError(
        `the DuckDB file ${warehouse.path} (DUCKDB_PATH) does not exist, so it holds no copy to clean against; ` +
          "point DUCKDB_PATH at the file the migration wrote to",
        { reason: "warehouse" },
      ),
    );
  }
  return open();
}

async function createWarehouse(config: Config): Promise<Warehouse> {
  if (config.warehouse.kind === "bigquery") {
    const { createBigQueryWarehouse } = await import("../adapters/bigquery/bigquery-warehouse");
    return createBigQueryWarehouse(config.warehouse);
  }
  const { createDuckDbWarehouse } = await import("../adapters/duckdb/duckdb-warehouse");
  return createDuckDbWarehouse(config.warehouse);
}
