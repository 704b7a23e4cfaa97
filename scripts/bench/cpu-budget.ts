import { availableParallelism } from "node:os";
import { addDays, type Row } from "@table-archiver/core";
import { createRuntime } from "@table-archiver/core/runtime";
import { benchLogger, ensureBenchTable, freshBenchConfig } from "./bench-table";
import { localServerPid, processCpuSeconds } from "./process-cpu";

/**
 * What the two ends of the migration bench cost on their own, in CPU time,
 * beside the budget the 300,000 rows/s target leaves on this machine. Day by
 * day through the 365 days of bench_events (1,000,000 rows), one day at a
 * time so each end's CPU time can be told apart:
 * - source: SourceDatabase.streamDay reads the day into memory; CPU of this
 *   process and of the MySQL server (read from /proc when the server runs on
 *   this machine);
 * - warehouse: Warehouse.replaceDay writes those rows into a fresh DuckDB
 *   file with the configured settings; CPU of this process (DuckDB's threads
 *   included).
 * Everything else the year run does (queue, ledger, bookkeeping, the copy
 * task itself) costs more on top. At R rows/s on C cores, N rows leave
 * C x N / R CPU-seconds for all of it. Prints one JSON line.
 */
const TABLE = "bench_events";
const ROWS = 1_000_000;
const TARGET_ROWS_PER_SECOND = 300_000;

async function main() {
  await ensureBenchTable({ table: TABLE, rows: ROWS, firstDay: "2024-01-01", days: 365 });
  const config = await freshBenchConfig("cpu-budget");
  const runtime = await createRuntime(config, { logger: benchLogger });
  try {
    const schema = await runtime.source.describeTable(TABLE);
    if (!schema) throw new Error(`${TABLE} is missing`);
    const warehouse = await runtime.copy.warehouse();
    const destination = { dataset: config.warehouse.dataset, table: `${TABLE}_budget` };
    await warehouse.ensureTable(destination, schema, "created_at");
    const source = new Tally(localServerPid("mariadbd", "mysqld"));
    const written = new Tally(undefined);
    for (let i = 0; i < 365; i++) {
      const day = addDays("2024-01-01", i);
      const stream = runtime.source.streamDay(schema, "created_at", day, config.copyBatchRows);
      const batches = await source.time(async () => {
        const kept: (readonly Row[])[] = [];
        for await (const batch of stream.batches) kept.push(batch);
        return kept;
      });
      source.rows += stream.stats().rows;
      const { rowsWritten } = await written.time(() =>
        warehouse.replaceDay(
          { destination, filterColumn: "created_at", day },
          schema,
          fromArray(batches),
          "id",
        ),
      );
      written.rows += rowsWritten;
    }
    if (source.rows !== ROWS || written.rows !== ROWS) {
      throw new Error(`expected ${ROWS} rows, read ${source.rows} and wrote ${written.rows}`);
    }
    const cores = availableParallelism();
    const bothEnds = source.cpuSeconds + source.serverCpuSeconds + written.cpuSeconds;
    return {
      scenario: "what the two ends of the year run cost alone (1,000,000 rows / 365 days, one day at a time)",
      source: source.figures(),
      warehouse: written.figures(),
      cores,
      cpuSecondsAllowedAtTarget: round((cores * ROWS) / TARGET_ROWS_PER_SECOND),
      cpuSecondsBothEnds: round(bothEnds),
      ceilingRowsPerSecond: Math.round((cores * ROWS) / bothEnds),
      settings: { copyBatchRows: config.copyBatchRows },
    };
  } finally {
    await runtime.close();
  }
}

async function* fromArray(batches: readonly (readonly Row[])[]) {
  yield* batches;
}

/** Wall and CPU time summed over the calls of one end. */
class Tally {
  rows = 0;
  seconds = 0;
  cpuSeconds = 0;
  serverCpuSeconds = 0;
  /** `server`: the MySQL server's process, whose CPU time is counted too. */
  constructor(private readonly server: string | undefined) {}

  async time<T>(work: () => Promise<T>): Promise<T> {
    const server = processCpuSeconds(this.server);
    const cpu = process.cpuUsage();
    const started = performance.now();
    const result = await work();
    this.seconds += (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    this.cpuSeconds += (used.user + used.system) / 1e6;
    const serverAfter = processCpuSeconds(this.server);
    if (server !== undefined && serverAfter !== undefined) this.serverCpuSeconds += serverAfter - server;
    return result;
  }

  figures() {
    return {
      rowsPerSecondOneAtATime: Math.round(this.rows / this.seconds),
      cpuSeconds: round(this.cpuSeconds),
      ...(this.server ? { serverCpuSeconds: round(this.serverCpuSeconds) } : {}),
    };
  }
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

console.log(JSON.stringify(await main()));
