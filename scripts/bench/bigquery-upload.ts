/**
 * BigQuery-path throughput: synthetic canonical rows of 8 mixed columns (the
 * bench table's shape) encoded as NDJSON and uploaded by the real
 * @google-cloud/bigquery client, through BigQueryWarehouse.replaceDay, into the
 * local REST stand-in (which only counts lines here). Each scenario runs in a
 * process of its own so its peak RSS is its own; the stand-in runs in another.
 * Prints one JSON line per scenario: rows/s (with and without making the rows)
 * and peak RSS, for a 100,000-row day, a 1,000,000-row day, 1,000,000 rows
 * over 100 days, and a 5,000,000-row day with V8's old space capped at 64 MiB
 * (it only completes if the day is never held). Target: >= 250,000 rows/s,
 * peak RSS flat with day size. V8 grows its heap lazily when nothing caps it,
 * so uncapped runs show some RSS growth that is not retained data.
 *
 *   npx tsx scripts/bench/bigquery-upload.ts [--rows N]
 */
import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { addDays, type Row } from "@table-archiver/core";
import { createBigQueryWarehouse } from "@table-archiver/core/bigquery";
import { standInBigQueryClient, startBigQueryStandIn } from "@table-archiver/core/bigquery/testing";
import { flat, pad2, syntheticSchema } from "./synthetic-schema";

const BATCH_ROWS = 10_000;
const FIRST_DAY = "2024-03-01";
const self = fileURLToPath(import.meta.url);

interface Scenario {
  readonly name: string;
  readonly rows: number;
  readonly days: number;
  /** Caps V8's old space: the upload must then still work, proving no day is held in memory. */
  readonly heapCapMiB?: number;
}

const schema = syntheticSchema({ fractionDigits: 6 });
const names = flat(Array.from({ length: 50_000 }, (_, i) => `user-${i}-${"x".repeat(i % 40)}`));
const payloads = flat(Array.from({ length: 3_000 }, (_, i) => `{"n": ${i}, "tags": ["a", "b"], "ok": true}`));

/** One day's rows in canonical values, in batches; time spent making them is added to `spent.ms`. */
async function* dayRows(
  day: string,
  first: number,
  count: number,
  spent: { ms: number },
): AsyncGenerator<Row[]> {
  for (let start = 0; start < count; start += BATCH_ROWS) {
    const began = performance.now();
    const rows: Row[] = [];
    for (let i = start; i < Math.min(start + BATCH_ROWS, count); i++) {
      const second = Math.floor((i / count) * 86_400);
      const clock = `${pad2(Math.floor(second / 3600))}:${pad2(Math.floor(second / 60) % 60)}:${pad2(second % 60)}`;
      const n = first + i;
      rows.push([
        String(10_000_000_000 + n),
        `${day} ${clock}.${String(n % 1_000_000).padStart(6, "0")}`,
        n % 100_000,
        names[n % names.length],
        `${Math.floor(n / 7) % 100_000}.${pad2(n % 100)}`,
        (n * 1.5) / 7,
        n % 128,
        n % 10 === 0 ? null : payloads[n % payloads.length],
      ]);
    }
    spent.ms += performance.now() - began;
    yield rows;
  }
}

/** Runs one scenario in this process against the stand-in at `url`; prints its JSON line. */
async function runScenario(url: string, scenario: Scenario): Promise<void> {
  const warehouse = createBigQueryWarehouse({
    project: "bench-project",
    location: "EU",
    client: standInBigQueryClient(url, "bench-project", "EU"),
  });
  const destination = { dataset: "bench", table: `orders_${scenario.days}` };
  await warehouse.ensureTable(destination, schema, "created_at");
  const perDay = Math.ceil(scenario.rows / scenario.days);
  const spent = { ms: 0 };
  const began = performance.now();
  const cpuBefore = process.cpuUsage();
  let written = 0;
  for (let d = 0; d < scenario.days; d++) {
    const count = Math.min(perDay, scenario.rows - d * perDay);
    const day = addDays(FIRST_DAY, d);
    const { rowsWritten } = await warehouse.replaceDay(
      { destination, filterColumn: "created_at", day },
      schema,
      dayRows(day, d * perDay, count, spent),
    );
    if (rowsWritten !== count) throw new Error(`${day}: wrote ${rowsWritten} rows, expected ${count}`);
    written += rowsWritten;
  }
  const ms = performance.now() - began;
  const cpu = process.cpuUsage(cpuBefore);
  await warehouse.close();
  const rate = (spentMs: number) => Math.round((written / spentMs) * 1000);
  console.log(
    JSON.stringify({
      bench: "bigquery-upload",
      scenario: scenario.name,
      rows: written,
      days: scenario.days,
      seconds: Number((ms / 1000).toFixed(2)),
      rowsPerSecond: rate(ms),
      rowsPerSecondWithoutGeneration: rate(ms - spent.ms),
      // On a busy machine wall time lies; CPU time (this process, generation included) does not.
      cpuSecondsPerMillionRows: Number(((cpu.user + cpu.system) / 1e6 / (written / 1e6)).toFixed(2)),
      peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    }),
  );
}

/** Forks this file with `args` in a Node process of its own. */
function forkSelf(args: string[], nodeOptions: string[] = []): ChildProcess {
  return fork(self, args, {
    execArgv: [...nodeOptions, "--import", "tsx"],
    stdio: ["inherit", "inherit", "inherit", "ipc"],
  });
}

/** The stand-in in a process of its own, so its buffers never count in a scenario's RSS. */
async function serveStandIn(): Promise<void> {
  const standIn = await startBigQueryStandIn({ keepRows: false });
  process.send?.({ url: standIn.url });
  process.on("disconnect", () => void standIn.close().then(() => process.exit(0)));
}

/** Runs every scenario, each in its own process, against one stand-in process. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      rows: { type: "string", default: "1000000" },
      serve: { type: "boolean", default: false },
      scenario: { type: "string" },
      url: { type: "string" },
    },
  });
  const rows = Number(values.rows);
  if (values.serve) return serveStandIn();
  if (values.scenario && values.url) return runScenario(values.url, JSON.parse(values.scenario) as Scenario);

  const server = forkSelf(["--serve"]);
  const [message] = (await once(server, "message")) as [{ url: string }];
  const scenarios: Scenario[] = [
    { name: "one day of 100,000 rows", rows: Math.round(rows / 10), days: 1 },
    { name: `one day of ${rows.toLocaleString("en")} rows`, rows, days: 1 },
    { name: `${rows.toLocaleString("en")} rows over 100 days`, rows, days: 100 },
    {
      name: `one day of ${(rows * 5).toLocaleString("en")} rows, V8 old space capped at 64 MiB`,
      rows: rows * 5,
      days: 1,
      heapCapMiB: 64,
    },
  ];
  console.log(
    `bigquery upload into the local stand-in: ${rows.toLocaleString("en")} rows of 8 columns, batches of ${BATCH_ROWS}`,
  );
  try {
    for (const scenario of scenarios) {
      const heap = scenario.heapCapMiB ? [`--max-old-space-size=${scenario.heapCapMiB}`] : [];
      const child = forkSelf(["--scenario", JSON.stringify(scenario), "--url", message.url], heap);
      const [code] = (await once(child, "exit")) as [number | null];
      if (code !== 0) throw new Error(`${scenario.name}: exited with ${code}`);
    }
  } finally {
    server.disconnect();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
