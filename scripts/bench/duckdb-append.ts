/**
 * Warehouse-side throughput: 1,000,000 synthetic canonical rows of 8 mixed
 * columns, in batches of 10,000, through DuckDbWarehouse.replaceDay into a
 * temporary database file. Prints rows/s with and without the time spent
 * making the rows, CPU time, and RSS. Only one batch exists at a time.
 * The machine is shared and has 2 cores: run it on a quiet machine, and read
 * the CPU time when it is not.
 *
 *   npx tsx scripts/bench/duckdb-append.ts [--rows N] [--memory]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Row } from "@table-archiver/core";
import { createDuckDbWarehouse } from "@table-archiver/core/duckdb";
import { flat, pad2, syntheticSchema } from "./synthetic-schema";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "1000000" },
    runs: { type: "string", default: "3" },
    memory: { type: "boolean", default: false },
  },
});
const totalRows = Number(values.rows);
const batchRows = 10_000;
const day = "2024-03-01";

const schema = syntheticSchema({ fractionDigits: 0 });
const customers = flat(Array.from({ length: 50_000 }, (_, i) => `customer-${i}-${"x".repeat(i % 40)}`));
const attributes = flat(Array.from({ length: 3000 }, (_, i) => `{"sku": "S${i}", "gift": ${i % 2 === 0}}`));
let generationMs = 0;

/**
 * Rows in canonical values, as the MySQL source produces them; time spent
 * here is measured apart. Text columns draw on pools of flat strings so the
 * figure is not about V8 flattening the generator's own strings.
 */
async function* batches(): AsyncGenerator<readonly Row[]> {
  let lastSecond = -1;
  let createdAt = "";
  for (let start = 0; start < totalRows; start += batchRows) {
    const began = performance.now();
    const rows: Row[] = [];
    for (let i = start; i < Math.min(start + batchRows, totalRows); i++) {
      const second = Math.floor((i / totalRows) * 86_400);
      if (second !== lastSecond) {
        const clock = `${pad2(Math.floor(second / 3600))}:${pad2(Math.floor(second / 60) % 60)}:${pad2(second % 60)}`;
        [createdAt = ""] = flat([`${day} ${clock}`]);
        lastSecond = second;
      }
      rows.push([
        String(10_000_000_000 + i),
        createdAt,
        i % 1000,
        customers[i % customers.length],
        `${Math.floor(i / 7) % 100_000}.${pad2(i % 100)}`,
        (i % 997) / 7,
        i % 5,
        i % 10 === 0 ? null : attributes[i % attributes.length],
      ]);
    }
    generationMs += performance.now() - began;
    yield rows;
  }
}

const folder = await mkdtemp(join(tmpdir(), "duckdb-append-"));
const path = values.memory ? ":memory:" : join(folder, "bench.duckdb");
const warehouse = await createDuckDbWarehouse({ path, dataset: "bench" });
try {
  const destination = { dataset: "bench", table: "orders" };
  await warehouse.ensureTable(destination, schema, "created_at");
  console.log(
    `duckdb append (${values.memory ? "in memory" : "file"}): ${totalRows} rows of 8 columns per run`,
  );
  // Every run replaces the same day, so later runs also delete the previous copy.
  for (let run = 1; run <= Number(values.runs); run++) {
    generationMs = 0;
    const began = performance.now();
    const cpuBefore = process.cpuUsage();
    const { rowsWritten } = await warehouse.replaceDay(
      { destination, filterColumn: "created_at", day },
      schema,
      batches(),
    );
    const totalMs = performance.now() - began;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    if (rowsWritten !== totalRows) throw new Error(`wrote ${rowsWritten} rows, expected ${totalRows}`);
    const rate = (ms: number) => Math.round((rowsWritten / ms) * 1000).toLocaleString("en");
    console.log(
      `  run ${run}: warehouse only ${rate(totalMs - generationMs)} rows/s; ` +
        `with row generation ${rate(totalMs)} rows/s; ` +
        `CPU (all threads, generation included) ${(cpuMs / (rowsWritten / 1e6)).toFixed(0)} ms per million rows; ` +
        `RSS ${(process.memoryUsage.rss() / 2 ** 20).toFixed(0)} MiB`,
    );
  }
  console.log(`  peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
} finally {
  await warehouse.close();
  await rm(folder, { recursive: true, force: true });
}
