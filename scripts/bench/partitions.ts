/**
 * Partition cleanup benchmark: 1,000,000 rows over the 366 days of 2024 in
 * archiver_bench.bench_partitioned, `PARTITION BY RANGE (TO_DAYS(created_at))`
 * one partition a month (p2024_01 … p2024_12) and pmax, and the same rows in
 * bench_unpartitioned (no partitions, PRIMARY KEY (id)). Both are rebuilt on
 * every run, since the run empties them.
 *
 * Every day of bench_partitioned is copied into a fresh DuckDB file by the
 * real copy task; startCleanup (dry_run false) then queues one task a
 * partition into an in-memory queue, and the real cleanDay runs them, two at
 * a time: each partition verified day by day, exchanged with a twin, the twin
 * verified and dropped. The peer: pt-archiver --purge --bulk-delete
 * --limit 1000 --commit-each on bench_unpartitioned. Prints one JSON line:
 * both rates and their ratio (the archiver's includes queueing the cleanup).
 *
 *   npx tsx scripts/bench/partitions.ts     (needs pt-archiver, from percona-toolkit, for the peer's figures)
 */
import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import {
  type CalendarDay,
  type CleanupDeps,
  type CleanupTaskReport,
  cleanDay,
  cleanPartitionTask,
  isPartitionTask,
  startCleanup,
} from "@table-archiver/core";
import { createDuckDbWarehouse } from "@table-archiver/core/duckdb";
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
import { createMemoryTaskQueue, type MemoryTaskQueue } from "@table-archiver/core/testing";
import { BENCH_DATABASE, BENCH_SERVER, benchLogger, freshBenchConfig } from "./bench-table";
import { copyAllDays, countRows, forgetRun, round, waitForFlushedRedo } from "./cleanup-bench-support";
import { ptArchiverPurge, ptServerAt, type ToolRun } from "./live/pt-archiver-runs";
import { buildTables, DAYS, dropTwins, FIRST_DAY, PEER_TABLE, ROWS, TABLE } from "./partitions-bench-tables";

const PREFIX = "bench-partitions";
/** Cleanup tasks run at once. */
const WIDTH = 2;
const NOW = new Date("2026-11-21T12:00:00Z");

export async function main(): Promise<Record<string, unknown>> {
  const buildSeconds = await buildTables();
  const config = await freshBenchConfig(TABLE);
  // The file freshBenchConfig has just deleted.
  const duckdbPath = `.bench/${TABLE}.duckdb`;

  const pool = createMysqlPool(config.mysql, { connectionLimit: 8 });
  const redis = createRedisClient(config.redis);
  await forgetRun(redis, TABLE, PREFIX);
  const source = createMysqlSourceDatabase(pool);
  const warehouse = await createDuckDbWarehouse({ path: duckdbPath, dataset: "archive" });
  const queue = createMemoryTaskQueue();
  const loadProbe = createMysqlLoadProbe({ primary: pool, replicaUrls: [] });
  const partitions = createMysqlPartitionedTable(pool);
  const spent = new Map<string, number>();
  const longest = new Map<string, number>();
  const warehouseSpent = new Map<string, number>();
  const timedWarehouse = timed(warehouse, warehouseSpent);
  const deps: CleanupDeps = {
    source,
    account: createMysqlAccountCheck(pool),
    deleter: createMysqlDayDeleter(pool),
    partitions: timed(partitions, spent, longest),
    loadProbe,
    warehouse: async () => timedWarehouse,
    ledger: createRedisMigrationLedger(redis),
    state: createRedisCleanupState(redis, { prefix: PREFIX }),
    queue,
    logger: benchLogger,
    clock: () => NOW,
    timeZone: "UTC",
    destinations: { defaultDataset: "archive", allowProject: false },
    settings: config.cleanup,
    recopy: () => Promise.reject(new Error("the partitions bench never re-copies a day")),
    warehouseLabel: `the DuckDB file ${duckdbPath}`,
  };
  let finished = false;
  try {
    const copySeconds = await copyAllDays(deps, config, {
      table: TABLE,
      firstDay: FIRST_DAY,
      days: DAYS,
      now: NOW,
    });
    const settledMs = await waitForFlushedRedo(pool);
    // The copy went through the timed warehouse too: count the cleanup's calls alone.
    spent.clear();
    longest.clear();
    warehouseSpent.clear();

    const started = performance.now();
    const summary = await startCleanup(deps, {
      clean_table: TABLE,
      filter_column: "created_at",
      dry_run: false,
      recopy_changed_days: false,
      allow_delete_triggers: false,
      exchange_partitions: true,
    });
    const enqueueSeconds = (performance.now() - started) / 1000;
    const { reports, failures } = await runQueue(queue, deps);
    const archiverSeconds = (performance.now() - started) / 1000;
    const tasksSeconds = archiverSeconds - enqueueSeconds;
    const archiverRows = reports.reduce((sum, r) => sum + r.rowsDeleted, 0);
    const twinsLeft = (await partitions.detachedTwins()).length;

    const peerSettledMs = await waitForFlushedRedo(pool);
    const peer = await ptArchiverOnBenchServer();
    finished = true;

    const archiverRate = archiverRows / archiverSeconds;
    const peerRate = peer ? peer.rows / peer.seconds : undefined;
    return {
      scenario:
        "clean 366 days / 1,000,000 rows of a table partitioned by month (exchange) vs pt-archiver --purge on the same rows unpartitioned",
      rows: ROWS,
      archiver: {
        seconds: round(archiverSeconds),
        enqueueSeconds: round(enqueueSeconds),
        tasksSeconds: round(tasksSeconds),
        rowsDeleted: archiverRows,
        rowsPerSecond: Math.round(archiverRate),
        tasks: reports.length + failures.length,
        taskFailures: failures.map(({ day, partition, error }) => `${partition ?? day}: ${error}`),
        partitionsExchanged: reports.filter((r) => r.partition?.outcome === "cleaned").length,
        partitionsChunked: reports.filter((r) => r.partition?.outcome === "chunked").length,
        // Summed over the tasks (two run at once): dayFigures counts and fingerprints a partition's or twin's rows.
        partitionCallsMs: Object.fromEntries([...spent].map(([name, ms]) => [name, Math.round(ms)])),
        // The longest single call of each: a twin's slice (sliceFigures) is two statements, its bound and its hash.
        longestCallMs: Object.fromEntries([...longest].map(([name, ms]) => [name, round(ms)])),
        sliceRows: config.cleanup.partitionSliceRows,
        warehouseCallsMs: Object.fromEntries([...warehouseSpent].map(([name, ms]) => [name, Math.round(ms)])),
        longestTaskMs: Math.round(Math.max(0, ...reports.map((r) => r.durationMs))),
        concurrency: WIDTH,
        paths: summary.partitions.map(({ partition, path, reason, days }) => ({
          partition,
          path,
          days: days.length,
          ...(reason ? { reason } : {}),
        })),
        twinsLeft,
        redoSettleMs: settledMs,
      },
      ptArchiver: peer
        ? {
            seconds: round(peer.seconds),
            rowsDeleted: peer.rows,
            rowsPerSecond: Math.round(peer.rows / peer.seconds),
            command: peer.detail,
            redoSettleMs: peerSettledMs,
          }
        : "not run: pt-archiver is not on PATH; install it with apt-get update && apt-get install -y percona-toolkit",
      ratio: peerRate ? round(archiverRate / peerRate) : null,
      rowsLeft: { [TABLE]: await countRows(pool, TABLE), [PEER_TABLE]: await countRows(pool, PEER_TABLE) },
      setupSeconds: { build: round(buildSeconds), copy: round(copySeconds) },
    };
  } finally {
    if (!finished) await dropTwins().catch(() => {});
    await Promise.allSettled([queue.close(), warehouse.close(), loadProbe.close()]);
    await pool.end();
    // The operator's Redis keeps nothing of the bench: its days, records and queue go, as before it started.
    await forgetRun(redis, TABLE, PREFIX).catch(() => {});
    redis.disconnect();
  }
}

/** The adapter with the milliseconds spent in each method added up in `spent`, the longest call in `longest`. */
function timed<T extends object>(
  adapter: T,
  spent: Map<string, number>,
  longest = new Map<string, number>(),
): T {
  return new Proxy(adapter, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function" || typeof key !== "string") return value;
      return async (...args: unknown[]) => {
        const started = performance.now();
        try {
          return await value.apply(target, args);
        } finally {
          const ms = performance.now() - started;
          spent.set(key, (spent.get(key) ?? 0) + ms);
          longest.set(key, Math.max(longest.get(key) ?? 0, ms));
        }
      };
    },
  });
}

interface Failure {
  readonly day: CalendarDay;
  readonly partition?: string;
  readonly error: string;
}

/**
 * Runs every queued task (and any a task queues: a partition sent down the
 * chunked path queues its other days), WIDTH at a time, each once.
 */
async function runQueue(
  queue: MemoryTaskQueue,
  deps: CleanupDeps,
): Promise<{ reports: CleanupTaskReport[]; failures: Failure[] }> {
  const reports: CleanupTaskReport[] = [];
  const failures: Failure[] = [];
  const lane = async () => {
    for (let task = queue.take(); task; task = queue.take()) {
      if (task.kind !== "clean") throw new Error(`unexpected ${task.kind} task`);
      try {
        reports.push(await (isPartitionTask(task) ? cleanPartitionTask(deps, task) : cleanDay(deps, task)));
      } catch (error) {
        failures.push({ day: task.day, partition: task.partition, error: (error as Error).message });
      }
      queue.finish(task);
    }
  };
  // A lane that found the queue empty may stop before another lane's task queues more: go round until none is left.
  while (queue.tasks().length > 0) await Promise.all(Array.from({ length: WIDTH }, lane));
  return { reports, failures };
}

/**
 * The peer, as the target names it (live/pt-archiver-runs.ts), on the bench
 * server; undefined when pt-archiver is not installed.
 */
async function ptArchiverOnBenchServer(): Promise<ToolRun | undefined> {
  if (spawnSync("pt-archiver", ["--version"]).error) {
    console.log(
      "pt-archiver is not on PATH: install it with `apt-get update && apt-get install -y percona-toolkit`; printing the archiver's figures alone",
    );
    return undefined;
  }
  return ptArchiverPurge(ptServerAt(BENCH_SERVER), {
    database: BENCH_DATABASE,
    table: PEER_TABLE,
    where: "created_at < '2025-01-01'",
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(JSON.stringify(await main()));
}
