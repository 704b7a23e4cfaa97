import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

/**
 * `pnpm bench [name...]`: runs each benchmark in its own Node process (so
 * peak RSS belongs to one scenario) and prints its figures. Benchmarks print
 * figures; they never fail on a target, but the targets are shown beside them.
 *
 * Options after the names go to the benches named (`pnpm bench live --days 10`).
 * A bench marked `onlyWhenNamed` is left out of a bare `pnpm bench`: `live`
 * needs sysbench and pt-archiver and runs for many minutes.
 */
const benches: Record<string, { file: string; args?: string[]; target: string; onlyWhenNamed?: boolean }> = {
  migration: {
    file: "migration.ts",
    args: ["year"],
    target: ">= 300,000 rows/s end to end, peak RSS <= 300 MB",
  },
  "one-day": {
    file: "migration.ts",
    args: ["one-day"],
    target: "peak RSS <= 300 MB for a 1,000,000-row day",
  },
  "per-day": {
    file: "migration.ts",
    args: ["per-day"],
    target: "none: what a task costs apart from its rows, to read beside the year figure",
  },
  budget: {
    file: "cpu-budget.ts",
    target: "none: CPU time of the source and the warehouse alone, beside what 300,000 rows/s allows",
  },
  plan: {
    file: "migration.ts",
    args: ["plan"],
    target: "365 days planned in <= 100 ms, no slower on 10x rows",
  },
  "end-to-end": {
    file: "end-to-end.ts",
    target:
      "the built CLI on 1,017,290 rows over 365 days: copy >= 4x pt-archiver's copy and >= 0.3 of the " +
      "mysql client's read, cleanup >= 1.5x pt-archiver's purge",
  },
  cleanup: { file: "cleanup.ts", target: ">= 120,000 rows/s, no chunk longer than 250 ms" },
  "delete-cost": {
    file: "delete-cost.ts",
    target:
      "none: the server's CPU per deleted row (statements and purge) for a bare DELETE, the archiver's " +
      "chunks and pt-archiver's purge, on a private primary; what bounds a cleanup's rate for a given harm",
    onlyWhenNamed: true,
  },
  partitions: {
    file: "partitions.ts",
    target:
      "partition cleanup >= 10x pt-archiver --purge --bulk-delete --limit 1000 --commit-each " +
      "on an unpartitioned copy of the same rows",
  },
  bigquery: { file: "bigquery-upload.ts", target: ">= 250,000 rows/s into the local stand-in, memory flat" },
  reader: { file: "reader-latency.ts", target: "p99 <= 50 ms with 200 clients, 3,650-member set" },
  cli: { file: "cli-startup.ts", target: "pnpm archiver status < 0.5 s wall-clock (median of 5 runs)" },
  live: {
    file: "live/live.ts",
    target:
      "under a live workload, against pt-archiver: cleanup >= 1.5x its rate at <= 1.1x its p99; " +
      "copy >= 2x its rate at <= 1.1x its p99; no second > 10x baseline p99; replica lag <= 1 s; " +
      "partition cleanup p99 <= 1.2x baseline, replica lag < 0.5 s",
    onlyWhenNamed: true,
  },
};

const argv = process.argv.slice(2);
const firstOption = argv.findIndex((arg) => arg.startsWith("-"));
const wanted = firstOption === -1 ? argv : argv.slice(0, firstOption);
const options = firstOption === -1 ? [] : argv.slice(firstOption);
const names =
  wanted.length > 0 ? wanted : Object.keys(benches).filter((name) => !benches[name]?.onlyWhenNamed);
let failed = false;
for (const name of names) {
  const bench = benches[name];
  if (!bench) {
    console.error(`unknown bench ${name}; choose from ${Object.keys(benches).join(", ")}`);
    process.exit(2);
  }
  const file = new URL(bench.file, import.meta.url).pathname;
  if (!existsSync(file)) {
    console.log(`\n== ${name}: skipped: ${bench.file} is not in this checkout`);
    continue;
  }
  console.log(`\n== ${name} (target: ${bench.target})`);
  const result = spawnSync(process.execPath, ["--import", "tsx", file, ...(bench.args ?? []), ...options], {
    stdio: "inherit",
    env: process.env,
  });
  if (result.status !== 0) {
    failed = true;
    console.log(`== ${name}: exited with ${result.status}`);
  }
}
process.exitCode = failed ? 1 : 0;
