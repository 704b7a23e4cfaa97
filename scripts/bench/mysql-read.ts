/**
 * How fast the MySQL source adapter reads: streams every day of the shared
 * 1,000,000-row, 365-day table archiver_bench.bench_events through
 * SourceDatabase.streamDay and prints rows/s and MB/s, next to mysql2 alone
 * running the same day queries with nothing kept, so the adapter's own cost
 * shows as the difference.
 *
 *   npx tsx scripts/bench/mysql-read.ts
 *
 * BENCH_MYSQL_URL (default mysql://root@127.0.0.1:3306) names the server.
 * Wall time includes the server's work; client CPU time is the adapter's.
 */
import { addDays, type CalendarDay, type TableSchema } from "@table-archiver/core";
import {
  createMysqlPool,
  createMysqlSourceDatabase,
  dayRowsQuery,
  type MysqlPool,
} from "@table-archiver/core/mysql";
import { BENCH_MYSQL_URL, ensureBenchTable } from "./bench-table";

const TABLE = "bench_events";
const COLUMN = "created_at";
const BATCH_ROWS = 10_000;

interface Run {
  readonly rows: number;
  readonly bytes: number;
  readonly seconds: number;
  readonly cpuSeconds: number;
}

async function main(): Promise<void> {
  const built = await ensureBenchTable({ table: TABLE, rows: 1_000_000, firstDay: "2024-01-01", days: 365 });
  if (built.created) console.log(`created ${TABLE} in ${built.seconds.toFixed(1)} s`);
  const pool = createMysqlPool({ url: BENCH_MYSQL_URL, password: process.env.MYSQL_PASSWORD });
  const source = createMysqlSourceDatabase(pool);
  try {
    const schema = await source.describeTable(TABLE);
    if (!schema) throw new Error(`${TABLE} is missing`);

    const probeStart = performance.now();
    const days: CalendarDay[] = [];
    for (let day = await source.firstDayWithRows(TABLE, COLUMN, "1000-01-01", "9999-12-31"); day; ) {
      days.push(day);
      day = await source.firstDayWithRows(TABLE, COLUMN, addDays(day, 1), "9999-12-31");
    }
    console.log(
      `${days.length} days found by index probes in ${(performance.now() - probeStart).toFixed(0)} ms`,
    );

    // Alternate the two readers so load from other processes hits both alike; report the best of three.
    const adapter: Run[] = [];
    const baseline: Run[] = [];
    for (let round = 0; round < 3; round++) {
      adapter.push(
        await timed(async () => {
          let rows = 0;
          let bytes = 0;
          for (const day of days) {
            const stream = source.streamDay(schema, COLUMN, day, BATCH_ROWS);
            for await (const batch of stream.batches) rows += batch.length;
            bytes += stream.stats().bytes;
          }
          return { rows, bytes };
        }),
      );
      baseline.push(await timed(() => mysql2Alone(pool, schema, days)));
    }
    report(`streamDay, batches of ${BATCH_ROWS}`, best(adapter));
    report("mysql2 alone, same queries", best(baseline));
    if (best(adapter).rows !== best(baseline).rows)
      throw new Error("the two readers disagree on the row count");
  } finally {
    await source.close();
  }
}

async function timed(read: () => Promise<{ rows: number; bytes: number }>): Promise<Run> {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const { rows, bytes } = await read();
  const used = process.cpuUsage(cpu);
  return {
    rows,
    bytes,
    seconds: (performance.now() - start) / 1000,
    cpuSeconds: (used.user + used.system) / 1e6,
  };
}

function best(runs: readonly Run[]): Run {
  return runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));
}

function report(label: string, run: Run): void {
  const rate = Math.round(run.rows / run.seconds).toLocaleString("en-US");
  const mb = (run.bytes / 1e6 / run.seconds).toFixed(1);
  const cpuRate = Math.round(run.rows / run.cpuSeconds).toLocaleString("en-US");
  console.log(
    `${label}: ${run.rows.toLocaleString("en-US")} rows in ${run.seconds.toFixed(2)} s = ${rate} rows/s, ${mb} MB/s` +
      ` (client CPU ${run.cpuSeconds.toFixed(2)} s = ${cpuRate} rows per CPU-second)`,
  );
}

/** The floor: mysql2 running each day's query on one connection, counting rows and keeping none. */
async function mysql2Alone(
  pool: MysqlPool,
  schema: TableSchema,
  days: readonly CalendarDay[],
): Promise<{ rows: number; bytes: number }> {
  const pooled = await pool.getConnection();
  const connection = pooled.connection as {
    query(options: object): NodeJS.EventEmitter;
    stream: { bytesRead: number };
  };
  try {
    const bytesBefore = connection.stream.bytesRead;
    let rows = 0;
    for (const day of days) {
      const { sql, values } = dayRowsQuery(schema, COLUMN, day);
      await new Promise<void>((resolve, reject) => {
        connection
          .query({ sql, values: [...values], rowsAsArray: true })
          .on("result", () => {
            rows++;
          })
          .on("error", reject)
          .on("end", resolve);
      });
    }
    return { rows, bytes: connection.stream.bytesRead - bytesBefore };
  } finally {
    pooled.release();
  }
}

await main();
