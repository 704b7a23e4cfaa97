import { existsSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
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
import type { Config } from "../config";
import { type CopyDayDeps, recopyDay } from "../domain/copy/copy-day";
import { createThrottleMemory } from "../domain/pacing/throttle-memory";
import { withDurableCleanup } from "../domain/records/durable-cleanup-state";
import { withDurableRecord } from "../domain/records/durable-day-record";
import { VerificationError } from "../errors";
import type { Logger } from "../ports/logger";
import type { TaskQueue } from "../ports/task-queue";
import type { Warehouse } from "../ports/warehouse";
import type { Runtime } from "./runtime";

export interface RuntimeOptions {
  readonly logger?: Logger;
  readonly clock?: () => Date;
}

/** Builds the adapters config selects. Drivers load lazily so a bundle carries only what it uses. */
export async function createRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const logger = options.logger ?? createJsonLogger({ level: config.logLevel });
  const pool = await openMysqlPool(config);
  const source = createMysqlSourceDatabase(pool);
  const redis = createRedisClient(config.redis);
  const ledger = createRedisMigrationLedger(redis);
  const queue = await createQueue(config);
  const cleanupState = createRedisCleanupState(redis);
  const loadProbe = createMysqlLoadProbe({
    primary: pool,
    replicaUrls: config.cleanup.replicaUrls,
    heartbeatTable: config.cleanup.replicaHeartbeatTable,
    password: config.mysql.password,
    // Replicas are reached by their URLs, with the primary's TLS settings (not through the Cloud SQL connector).
    poolOptions: mysqlTlsOptions(config.mysql.tls),
  });
  const clock = options.clock ?? (() => new Date());
  const destinations = {
    defaultDataset: config.warehouse.dataset,
    allowProject: config.warehouse.kind === "bigquery",
  };
  let warehouse: Promise<Warehouse> | undefined;
  const openWarehouse = () => {
    warehouse ??= createWarehouse(config).catch((error: unknown) => {
      warehouse = undefined;
      throw error;
    });
    return warehouse;
  };
  const copy: CopyDayDeps = {
    source,
    warehouse: openWarehouse,
    ledger: withDurableRecord(ledger, { warehouse: openWarehouse, destinations, logger }),
    logger,
    clock,
    timeZone: config.timeZone,
    destinations,
    batchRows: config.copyBatchRows,
    niceRatio: config.copyNiceRatio,
  };
  // Cleanup never creates a warehouse: one that is not there refuses the cleanup.
  const cleanupWarehouse = () => openExistingWarehouse(config, openWarehouse);
  return {
    config,
    logger,
    clock,
    source,
    ledger,
    queue,
    destinations,
    copy,
    migration: { source, queue, ledger, logger, clock, timeZone: config.timeZone, destinations },
    cleanup: {
      source,
      account: createMysqlAccountCheck(pool),
      deleter: createMysqlDayDeleter(pool),
      partitions: createMysqlPartitionedTable(pool),
      loadProbe,
      warehouse: cleanupWarehouse,
      warehouseLabel: warehouseLabel(config),
      ledger: withDurableRecord(ledger, { warehouse: cleanupWarehouse, destinations, logger }),
      state: withDurableCleanup(cleanupState, { warehouse: cleanupWarehouse, destinations, logger }),
      queue,
      logger,
      clock,
      destinations,
      settings: config.cleanup,
      throttleMemory: createThrottleMemory(config.cleanup.niceRatio, (ms) => sleep(ms)),
      recopy: (task) => recopyDay(copy, task),
    },
    warehouse: openWarehouse,
    async close() {
      await Promise.allSettled([
        queue.close(),
        loadProbe.close(),
        source.close(),
        warehouse?.then((w) => w.close()),
      ]);
      redis.disconnect();
    },
  };
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
      new VerificationError(
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
