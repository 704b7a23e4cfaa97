/**
 * The warehouse's share of a day's fixed cost: 365 days of 10 synthetic rows,
 * each replaced through DuckDbWarehouse.replaceDay with its record entry (the
 * copy's path: delete the day, append, count, record, commit), into a
 * temporary database file. Prints the CPU per day of the whole process (DuckDB's
 * threads included) and of the main thread, and the wall time per day.
 * Beside `pnpm bench per-day`, it tells how much of a task's fixed cost is
 * DuckDB's alone.
 *
 *   pnpm exec tsx scripts/bench/duckdb-per-day.ts [--days N] [--rows N]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { addDays, type Row } from "@table-archiver/core";
import { createDuckDbWarehouse } from "@table-archiver/core/duckdb";
import type { CopiedDayRecord } from "@table-archiver/core/ports";
import { syntheticSchema } from "./synthetic-schema";

const { values } = parseArgs({
  options: { days: { type: "string", default: "365" }, rows: { type: "string", default: "10" } },
});
const days = Number(values.days);
const rowsPerDay = Number(values.rows);
const schema = syntheticSchema({ fractionDigits: 6 });
const destination = { dataset: "bench", table: "orders" };

function rowsOf(day: string, first: number): Row[] {
  return Array.from({ length: rowsPerDay }, (_, i) => [
    String(first + i),
    `${day} ${String(i % 24).padStart(2, "0")}:00:00.000000`,
    i,
    `customer-${i}`,
    "12.34",
    1.5,
    1,
    '{"sku": "S1"}',
  ]);
}

const folder = await mkdtemp(join(tmpdir(), "duckdb-per-day-"));
const warehouse = await createDuckDbWarehouse({ path: join(folder, "bench.duckdb"), dataset: "bench" });
try {
  await warehouse.ensureTable(destination, schema, "created_at");
  const cpu = process.cpuUsage();
  const main = process.threadCpuUsage();
  const began = performance.now();
  for (let index = 0; index < days; index++) {
    const day = addDays("2024-01-01", index);
    const rows = rowsOf(day, index * rowsPerDay + 1);
    async function* batches() {
      yield rows;
    }
    const at = { destination, filterColumn: "created_at", day };
    await warehouse.ensureTable(destination, schema, "created_at");
    await warehouse.replaceDay(at, schema, batches(), "id", async ({ figures }) => {
      if (!figures || figures.rows !== rowsPerDay) throw new Error(`${day}: counted ${figures?.rows}`);
      const copy: CopiedDayRecord = {
        day,
        destination: destination.table,
        filterColumn: "created_at",
        figures: { ...figures, fingerprint: "0" },
        zeroDates: 0,
        bytes: 0,
        durationMs: 0,
        copiedAt: new Date().toISOString(),
      };
      return { kind: "copied", table: destination.table, copy };
    });
  }
  const perDay = (used: NodeJS.CpuUsage) => Math.round(((used.user + used.system) / 1000 / days) * 100) / 100;
  console.log(
    JSON.stringify({
      scenario: `${days} days of ${rowsPerDay} rows through DuckDbWarehouse.replaceDay`,
      cpuMsPerDay: perDay(process.cpuUsage(cpu)),
      mainThreadCpuMsPerDay: perDay(process.threadCpuUsage(main)),
      wallMsPerDay: Math.round(((performance.now() - began) / days) * 100) / 100,
    }),
  );
} finally {
  await warehouse.close();
  await rm(folder, { recursive: true, force: true });
}
