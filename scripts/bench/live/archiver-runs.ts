import { rm } from "node:fs/promises";
import { join } from "node:path";
import { parseMessage, startCleanup, startMigration } from "@table-archiver/core";
import { type Config, loadConfig } from "@table-archiver/core/config";
import { copiedDaysKey, createRedisClient, migratedDaysKey } from "@table-archiver/core/redis";
import { createRuntime, type Runtime } from "@table-archiver/core/runtime";
import { runWorker } from "@table-archiver/local/worker";
import {
  ARCHIVER_TABLE,
  CAPPED_TABLE,
  FILTER_COLUMN,
  LIVE_DATABASE,
  PARTITIONED_TABLE,
} from "./bench-tables";
import type { PrivateMariaDb } from "./private-mariadb";
import type { ToolRun } from "./pt-archiver-runs";
import { HEARTBEAT } from "./server-samplers";

const QUEUE_PREFIX = "bench-live";
/** Far enough after the data (2024) that a cutoff one year back leaves every day migratable. */
const NOW = new Date("2026-11-21T12:00:00Z");

/** A cleanup task's own account of a day, with when it was logged, to find the chunk behind a stall. */
export interface CleanedDay {
  readonly atMs: number;
  readonly day: string;
  readonly durationMs: number;
  readonly longestChunkMs: number;
  readonly waitedMs: number;
}

/** A partition the cleanup emptied at once (its log line "cleaned partition"), with when it was logged. */
export interface CleanedPartition {
  readonly atMs: number;
  readonly table: string;
  readonly partition: string;
  readonly days: number;
  readonly rowsDeleted: number;
  /** When its rows were exchanged into the twin ("partition detached into its twin"), if logged. */
  readonly detachedAtMs: number | undefined;
}

export interface ArchiverRunner {
  /** The settings that move the figures, as the archiver parsed them. */
  readonly settings: Record<string, unknown>;
  readonly cleanedDays: readonly CleanedDay[];
  readonly cleanedPartitions: readonly CleanedPartition[];
  /** Partitions sent down the chunked path instead ("partition takes the chunked path"), with why. */
  readonly chunkedPartitions: readonly string[];
  /**
   * Copies every day of `table` (the archiver's table unless named); with `maxRowsPerSecond`, the
   * migration message carries it as its table-wide rate cap (`max_rows_per_second`).
   */
  copyAll(days: number, table?: string, maxRowsPerSecond?: number): Promise<ToolRun>;
  /**
   * Cleans every migrated day of `table` (the archiver's table unless named), dry_run false; with
   * `maxRowsPerSecond`, the cleanup message carries it as its table-wide rate cap (`max_rows_per_second`).
   */
  cleanupAll(table?: string, maxRowsPerSecond?: number): Promise<ToolRun>;
  close(): Promise<void>;
}

/**
 * The archiver as an operator runs it, against the private primary: the
 * real runtime, the local worker (the task handler's own code, WORKER_ and
 * CLEANUP_CONCURRENCY as configured) already waiting on the queue, and each
 * phase started by the entry function's own planning (startMigration,
 * startCleanup) and timed from the message to the queue drained. Settings
 * are the archiver's defaults, or the environment's CLEANUP_* and the like;
 * the replica is watched as docs/cleanup.md advises for replicas: through
 * the bench's heartbeat table (CLEANUP_REPLICA_HEARTBEAT_TABLE), with a lag
 * limit of 1 s (the goal's), unless the environment says otherwise.
 */
export async function startArchiver(options: {
  primary: PrivateMariaDb;
  replica: PrivateMariaDb;
  /** Where the DuckDB warehouse goes (see toolOutputsDir). */
  warehouseDir: string;
  clockMs: () => number;
}): Promise<ArchiverRunner> {
  const config = loadConfig({
    ...process.env,
    MYSQL_URL: `${options.primary.url}/${LIVE_DATABASE}`,
    MYSQL_PASSWORD: "",
    CLOUD_SQL_INSTANCE: "",
    QUEUE: "local",
    LOCAL_QUEUE_PREFIX: QUEUE_PREFIX,
    WAREHOUSE: "duckdb",
    DUCKDB_PATH: join(options.warehouseDir, "warehouse.duckdb"),
    WAREHOUSE_DATASET: "archive",
    LOG_LEVEL: "info",
    CLEANUP_REPLICA_URLS: options.replica.url,
    CLEANUP_MAX_REPLICA_LAG_SECONDS: process.env.CLEANUP_MAX_REPLICA_LAG_SECONDS ?? "1",
    CLEANUP_REPLICA_HEARTBEAT_TABLE: process.env.CLEANUP_REPLICA_HEARTBEAT_TABLE ?? HEARTBEAT,
  });
  await forgetRedisRecords(config);
  // A warehouse left by an earlier run holds durable day records that a copy would restore instead of copying.
  const duckdbPath = join(options.warehouseDir, "warehouse.duckdb");
  const removeWarehouse = () =>
    Promise.all([rm(duckdbPath, { force: true }), rm(`${duckdbPath}.wal`, { force: true })]);
  await removeWarehouse();
  const cleanedDays: CleanedDay[] = [];
  const cleanedPartitions: CleanedPartition[] = [];
  const chunkedPartitions: string[] = [];
  const detachedAt = new Map<string, number>();
  // The first warnings say what went wrong; a hundred retries of the same one bury the figures.
  let complaints = 0;
  const complain = (message: string, fields?: object) => {
    complaints += 1;
    if (complaints <= 10) console.error(`archiver: ${message}`, fields ?? "");
    else if (complaints === 11) console.error("archiver: further warnings and errors are not printed");
  };
  const logger = {
    debug() {},
    info(message: string, fields?: Readonly<Record<string, unknown>>) {
      if (!fields) return;
      if (message === "cleanup: partition detached into its twin") {
        detachedAt.set(`${String(fields.table)}.${String(fields.partition)}`, options.clockMs());
        return;
      }
      if (message === "cleaned partition") {
        const key = `${String(fields.table)}.${String(fields.partition)}`;
        cleanedPartitions.push({
          atMs: options.clockMs(),
          table: String(fields.table),
          partition: String(fields.partition),
          days: Number(fields.days),
          rowsDeleted: Number(fields.rowsDeleted),
          detachedAtMs: detachedAt.get(key),
        });
        return;
      }
      if (message !== "cleaned day") return;
      cleanedDays.push({
        atMs: options.clockMs(),
        day: String(fields.day),
        durationMs: Number(fields.durationMs),
        longestChunkMs: Number(fields.longestChunkMs),
        waitedMs: Number(fields.waitedMs),
      });
    },
    warn: (message: string, fields?: Readonly<Record<string, unknown>>) => {
      if (message === "cleanup: partition takes the chunked path" && fields) {
        chunkedPartitions.push(
          `${String(fields.table)}.${String(fields.partition)}: ${String(fields.reason)}`,
        );
      }
      complain(message, fields);
    },
    error: (message: string, fields?: object) => complain(message, fields),
  };
  const runtime = await createRuntime(config, { logger, clock: () => NOW });
  const worker = await runWorker(runtime);
  await worker.ready();
  const settings = settingsOf(runtime);

  const drainedRun = async (start: () => Promise<unknown>, rows: () => number): Promise<ToolRun> => {
    const before = rows();
    const failedBefore = worker.outcomes().failed.length;
    const started = performance.now();
    await start();
    await worker.drained();
    const seconds = (performance.now() - started) / 1000;
    const failed = worker.outcomes().failed.slice(failedBefore);
    for (const failure of failed.slice(0, 5))
      console.error(`archiver task failed: ${failure.code} ${failure.message}`);
    return { rows: rows() - before, seconds, detail: failed.length ? `${failed.length} tasks failed` : "" };
  };

  return {
    settings,
    cleanedDays,
    cleanedPartitions,
    chunkedPartitions,
    copyAll: (days, table = ARCHIVER_TABLE, maxRowsPerSecond) =>
      drainedRun(
        () => {
          const parsed = parseMessage({
            years_to_migrate: 1,
            months_to_migrate: 0,
            source_tables: [table],
            destination_tables: [`${table}_archive`],
            filter_columns: [FILTER_COLUMN],
            // A message field, not a tuning default: every day in one message, as the issue measured.
            tasks_enqueued_limit: days,
            ...(maxRowsPerSecond ? { max_rows_per_second: maxRowsPerSecond } : {}),
          });
          if (parsed.mode !== "migration") throw new Error("unreachable: not a migration message");
          return startMigration(runtime.migration, parsed.message);
        },
        () => worker.outcomes().copied.rows,
      ),
    cleanupAll: (table = ARCHIVER_TABLE, maxRowsPerSecond) =>
      drainedRun(
        () => {
          const parsed = parseMessage({
            clean_table: table,
            filter_column: FILTER_COLUMN,
            dry_run: false,
            ...(maxRowsPerSecond ? { max_rows_per_second: maxRowsPerSecond } : {}),
          });
          if (parsed.mode !== "cleanup") throw new Error("unreachable: not a cleanup message");
          return startCleanup(runtime.cleanup, parsed.message);
        },
        () => worker.outcomes().cleanup.rowsDeleted,
      ),
    async close() {
      await worker.close();
      await runtime.close();
      await forgetRedisRecords(config);
      await removeWarehouse();
    },
  };
}

/** The settings that move the figures, so the printed table says what it measured. */
function settingsOf(runtime: Runtime): Record<string, unknown> {
  const { workerConcurrency, copyBatchRows, copyNiceRatio, cleanup } = runtime.config;
  return {
    workerConcurrency,
    copyBatchRows,
    copyNiceRatio,
    cleanupConcurrency: cleanup.concurrency,
    cleanupChunkRows: cleanup.chunkRows,
    cleanupPauseMs: cleanup.pauseMs,
    cleanupNiceRatio: cleanup.niceRatio,
    cleanupMaxReplicaLagSeconds: cleanup.maxReplicaLagSeconds,
    cleanupReplicaHeartbeatTable: cleanup.replicaHeartbeatTable,
    cleanupMaxThreadsRunning: cleanup.maxThreadsRunning,
    cleanupMaxRedoPercent: cleanup.maxRedoPercent,
  };
}

/**
 * The shared Redis is only ever touched at the bench's own keys: the three
 * archiver tables' records (`mig_bench_live`, `mig_bench_live_capped`,
 * `mig_bench_live_partitioned` and their copy records), their cleanup state,
 * their rate caps' budgets and the bench's queue prefix. Dropped before the
 * run (a run starts afresh) and after.
 */
async function forgetRedisRecords(config: Config): Promise<void> {
  const redis = createRedisClient(config.redis);
  try {
    const tables = [ARCHIVER_TABLE, CAPPED_TABLE, PARTITIONED_TABLE];
    const keys = tables.flatMap((table) => [migratedDaysKey(table), copiedDaysKey(table)]);
    const patterns = [
      ...tables.flatMap((table) => [
        `archiver:cleanup:${table}:*`,
        `archiver:cleanup-lease:${table}:*`,
        `archiver:cleaned:${table}`,
        `archiver:rate:copy:${table}`,
        `archiver:rate:cleanup:${table}`,
      ]),
      `${QUEUE_PREFIX}:*`,
    ];
    for (const match of patterns) {
      for await (const batch of redis.scanStream({ match, count: 1000 })) keys.push(...(batch as string[]));
    }
    await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
