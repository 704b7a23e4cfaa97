/**
 * Cleanup benchmark: 1,000,000 rows over 365 days in MariaDB/MySQL (table
 * archiver_bench.bench_cleanup, 8 columns). Arranges what a finished
 * migration leaves by copying every day into a DuckDB file with the real copy
 * task (copyDay: records figures and fills mig_bench_cleanup), queues the
 * cleanup with startCleanup (dry_run false), then runs the real cleanDay for
 * every queued day, CLEANUP_CONCURRENCY (default 1) at a time as the worker
 * would. Prints one JSON line: rows deleted per second of the 365 cleanup
 * tasks (verification included; queueing them is timed apart) and the
 * longest single chunk (one delete transaction).
 *
 *   npx tsx scripts/bench/cleanup.ts        (the table is rebuilt when it does not hold 1,000,000 rows)
 */
import { pathToFileURL } from "node:url";
import {
  addDays,
  type CalendarDay,
  type CleanupDeps,
  cleanDay,
  copyDay,
  startCleanup,
} from "@table-archiver/core";
import type { Config } from "@table-archiver/core/config";
import { createDuckDbWarehouse } from "@table-archiver/core/duckdb";
import { createLocalTaskQueue } from "@table-archiver/core/local-queue";
import {
  createMysqlAccountCheck,
  createMysqlDayDeleter,
  createMysqlLoadProbe,
  createMysqlPartitionedTable,
  createMysqlPool,
  createMysqlSourceDatabase,
} from "@table-archiver/core/mysql";
import {
  copiedDaysKey,
  createRedisCleanupState,
  createRedisClient,
  createRedisMigrationLedger,
  migratedDaysKey,
} from "@table-archiver/core/redis";
import { benchLogger, ensureBenchTable, freshBenchConfig } from "./bench-table";

const TABLE = "bench_cleanup";
const PREFIX = "bench-cleanup";
const NOW = new Date("2026-11-21T12:00:00Z");

export async function main(): Promise<Record<string, unknown>> {
  const table = await ensureBenchTable({ table: TABLE, rows: 1_000_000, firstDay: "2024-01-01", days: 365 });
  const config = await freshBenchConfig(TABLE);
  // The file freshBenchConfig has just deleted.
  const duckdbPath = `.bench/${TABLE}.duckdb`;

  const pool = createMysqlPool(config.mysql, { connectionLimit: 8 });
  const redis = createRedisClient(config.redis);
  await forget(redis);
  const source = createMysqlSourceDatabase(pool);
  const ledger = createRedisMigrationLedger(redis);
  const warehouse = await createDuckDbWarehouse({ path: duckdbPath, dataset: "archive" });
  const queue = createLocalTaskQueue({ redis: config.redis, prefix: PREFIX, attempts: 1 });
  const loadProbe = createMysqlLoadProbe({ primary: pool, replicaUrls: [] });
  const deps: CleanupDeps = {
    source,
    account: createMysqlAccountCheck(pool),
    deleter: createMysqlDayDeleter(pool),
    partitions: createMysqlPartitionedTable(pool),
    loadProbe,
    warehouse: async () => warehouse,
    ledger,
    state: createRedisCleanupState(redis, { prefix: PREFIX }),
    queue,
    logger: benchLogger,
    clock: () => NOW,
    destinations: { defaultDataset: "archive", allowProject: false },
    settings: config.cleanup,
    recopy: () => Promise.reject(new Error("the cleanup bench never re-copies a day")),
    warehouseLabel: `the DuckDB file ${duckdbPath}`,
  };
  try {
    const copySeconds = await copyAllDays(deps, config);
    const settledMs = await waitForFlushedRedo(pool);
    const enqueueStarted = performance.now();
    const summary = await startCleanup(deps, {
      clean_table: TABLE,
      filter_column: "created_at",
      dry_run: false,
      recopy_changed_days: false,
      allow_delete_triggers: false,
    });
    const days = [...(await queue.queuedDays("clean", TABLE))].sort();
    const enqueueSeconds = (performance.now() - enqueueStarted) / 1000;
    const started = performance.now();
    const reports = await inParallel(days, config.cleanup.concurrency, (day) =>
      cleanDay(deps, { kind: "clean", table: TABLE, filterColumn: "created_at", day }),
    );
    const seconds = (performance.now() - started) / 1000;
    const rows = reports.reduce((sum, r) => sum + r.rowsDeleted, 0);
    const [[left]] = (await pool.query({ sql: `SELECT COUNT(*) FROM ${TABLE}`, rowsAsArray: true })) as [
      unknown[][],
      unknown,
    ];
    return {
      scenario: "clean 365 days / 1,000,000 rows (verified, chunked, key-bounded)",
      tableBuiltSeconds: round(table.seconds),
      copySeconds: round(copySeconds),
      redoSettleMs: settledMs,
      daysQueued: summary.enqueued,
      enqueueSeconds: round(enqueueSeconds),
      daysCleaned: reports.filter((r) => r.outcome === "cleaned").length,
      rowsDeleted: rows,
      rowsLeft: Number(left?.[0]),
      seconds: round(seconds),
      rowsPerSecond: Math.round(rows / seconds),
      chunks: reports.reduce((sum, r) => sum + r.chunks, 0),
      chunkRows: config.cleanup.chunkRows,
      longestChunkMs: Math.max(...reports.map((r) => r.longestChunkMs)),
      daysWithChunkOver250Ms: reports.filter((r) => r.longestChunkMs > 250).length,
      dayLongestChunkP50Ms: percentile(
        reports.map((r) => r.longestChunkMs),
        50,
      ),
      dayLongestChunkP99Ms: percentile(
        reports.map((r) => r.longestChunkMs),
        99,
      ),
      waitedMs: reports.reduce((sum, r) => sum + r.waitedMs, 0),
      cleanupConcurrency: config.cleanup.concurrency,
      maxRedoPercent: config.cleanup.maxRedoPercent,
    };
  } finally {
    await Promise.allSettled([queue.close(), warehouse.close(), loadProbe.close()]);
    await pool.end();
    redis.disconnect();
  }
}

/** The state a finished migration leaves: every day copied by the real copy task and recorded. */
async function copyAllDays(deps: CleanupDeps, config: Config): Promise<number> {
  const started = performance.now();
  const days: CalendarDay[] = [];
  for (let i = 0; i < 365; i++) days.push(addDays("2024-01-01", i));
  await inParallel(days, 2, (day) =>
    copyDay(
      {
        source: deps.source,
        warehouse: deps.warehouse,
        ledger: deps.ledger,
        logger: benchLogger,
        clock: () => NOW,
        timeZone: "UTC",
        destinations: deps.destinations,
        batchRows: config.copyBatchRows,
      },
      { kind: "copy", table: TABLE, destination: TABLE, filterColumn: "created_at", day },
    ),
  );
  return (performance.now() - started) / 1000;
}

/**
 * Building the table and copying it leave InnoDB with a redo log nearly full
 * of unflushed changes; deletes started then stall on its forced flushing, a
 * cost of the bench's own setup, not of cleanup. Waits (at most a minute) until
 * MariaDB reports a checkpoint age under 16 MiB; MySQL has no such status and
 * goes on at once. Returns how long it waited.
 */
async function waitForFlushedRedo(pool: ReturnType<typeof createMysqlPool>): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < 60_000) {
    const [rows] = await pool.query({
      sql: "SHOW GLOBAL STATUS LIKE 'Innodb_checkpoint_age'",
      rowsAsArray: true,
    });
    const age = Number((rows as unknown[][])[0]?.[1] ?? 0);
    if (age < 16_777_216) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return Math.round(performance.now() - started);
}

/** Drops what an earlier run left in Redis: migrated days, copy records, cleanup state, queue. */
async function forget(redis: ReturnType<typeof createRedisClient>): Promise<void> {
  const keys = [migratedDaysKey(TABLE), copiedDaysKey(TABLE)];
  for await (const batch of redis.scanStream({ match: `${PREFIX}:*`, count: 1000 })) keys.push(...batch);
  await redis.del(...keys);
}

async function inParallel<T, R>(
  items: readonly T[],
  width: number,
  run: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, width) }, async () => {
    while (next < items.length) {
      const index = next++;
      out[index] = await run(items[index] as T);
    }
  });
  await Promise.all(lanes);
  return out;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(JSON.stringify(await main()));
}
