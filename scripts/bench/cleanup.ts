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
 *
 * ARCHIVER_POLICIES=FILE adds what an unattended worker carries: the file's
 * schedules (none should fire during the bench) and the run history, the
 * cleanup started as a run and each task's end counted in it (benchScheduling).
 */
import { pathToFileURL } from "node:url";
import {
  type CleanupDeps,
  type CleanupMessage,
  cleanDay,
  recordTaskEnd,
  startCleanup,
  startCleanupRun,
} from "@table-archiver/core";
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
  createRedisCleanupState,
  createRedisClient,
  createRedisMigrationLedger,
} from "@table-archiver/core/redis";
import { benchScheduling } from "./bench-schedules";
import { benchLogger, ensureBenchTable, freshBenchConfig } from "./bench-table";
import { copyAllDays, forgetRun, inParallel, round, waitForFlushedRedo } from "./cleanup-bench-support";

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
  await forgetRun(redis, TABLE, PREFIX);
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
    timeZone: "UTC",
    destinations: { defaultDataset: "archive", allowProject: false },
    settings: config.cleanup,
    recopy: () => Promise.reject(new Error("the cleanup bench never re-copies a day")),
    warehouseLabel: `the DuckDB file ${duckdbPath}`,
  };
  const policies = process.env.ARCHIVER_POLICIES;
  const scheduling = policies ? await benchScheduling(config, policies, warehouse, PREFIX) : undefined;
  try {
    const copySeconds = await copyAllDays(deps, config, {
      table: TABLE,
      firstDay: "2024-01-01",
      days: 365,
      now: NOW,
    });
    const settledMs = await waitForFlushedRedo(pool);
    const enqueueStarted = performance.now();
    const message: CleanupMessage = {
      clean_table: TABLE,
      filter_column: "created_at",
      dry_run: false,
      recopy_changed_days: false,
      allow_delete_triggers: false,
      exchange_partitions: true,
    };
    const { run, ...summary }: { readonly run?: string } & Awaited<ReturnType<typeof startCleanup>> =
      scheduling ? await startCleanupRun(deps, scheduling.runs, message) : await startCleanup(deps, message);
    const days = [...(await queue.queuedDays("clean", TABLE))].sort();
    const enqueueSeconds = (performance.now() - enqueueStarted) / 1000;
    const started = performance.now();
    const cpuAtStart = process.cpuUsage();
    const reports = await inParallel(days, config.cleanup.concurrency, async (day) => {
      const task = { kind: "clean", table: TABLE, filterColumn: "created_at", day, run } as const;
      const report = await cleanDay(deps, task);
      if (scheduling) await recordTaskEnd(scheduling.runs, task, { kind: "cleaned", report });
      return report;
    });
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuAtStart);
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
      // This process's CPU over the 365 tasks (DuckDB's threads included), steadier than their time on a busy machine.
      cpuSeconds: round((cpu.user + cpu.system) / 1e6),
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
      ...(policies ? { policies } : {}),
    };
  } finally {
    await scheduling?.close();
    await Promise.allSettled([queue.close(), warehouse.close(), loadProbe.close()]);
    await pool.end();
    // The operator's Redis keeps nothing of the bench: its days, records and queue go, as before it started.
    await forgetRun(redis, TABLE, PREFIX).catch(() => {});
    redis.disconnect();
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(JSON.stringify(await main()));
}
