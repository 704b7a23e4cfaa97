/**
 * `pnpm bench live`: what the archiver does to a live application, beside
 * pt-archiver, on a private MariaDB primary and replica that the bench starts
 * and ends itself. sysbench runs a fixed-rate workload on the primary the
 * whole time; a heartbeat measures the replica's lag and a sampler the
 * primary's purge debt and redo. Phases, each followed by a quiet gap:
 * baseline, archiver copy, pt-archiver copy, archiver capped copy (fresh rows,
 * the message's max_rows_per_second set to pt-archiver's copy rate), archiver
 * cleanup, pt-archiver purge, archiver capped cleanup (the capped copy's rows,
 * capped at pt-archiver's purge rate), archiver partition cleanup (the same rows
 * in a table RANGE-partitioned by month, copied before the workload starts,
 * emptied a partition at a time by exchange). Prints a table per phase and the
 * goal's ratios against pt-archiver, at full speed and at its pace, and
 * draws the workload's p99 over time as an SVG. A measurement: it prints the
 * targets, it never fails on them.
 *
 *   pnpm bench live [--days 100] [--rows-per-day 8000] [--pin] [--out DIR]
 */
import { chmod, mkdir, mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { processCpuSeconds } from "../process-cpu";
import { type ArchiverRunner, startArchiver } from "./archiver-runs";
import {
  ARCHIVER_TABLE,
  CAPPED_TABLE,
  countRows,
  endOfData,
  FILTER_COLUMN,
  LIVE_DATABASE,
  leftTwins,
  PARTITIONED_TABLE,
  PT_TABLE,
  partitionRows,
} from "./bench-tables";
import { capFrom } from "./capped-phases";
import { onInterrupt, stopAllProcesses } from "./child-processes";
import { parseLiveOptions, requirePrograms } from "./live-options";
import { partitionReport, report, writeOutputs } from "./live-report";
import type { Phase } from "./phase-figures";
import type { PrivateServers } from "./private-servers-setup";
import { setUpPrivateServers } from "./private-servers-setup";
import { ptArchiverCopy, ptArchiverPurge, type ToolRun } from "./pt-archiver-runs";
import { quietGap } from "./quiet-gap";
import { type Samplers, startSamplers } from "./server-samplers";
import { type RunningWorkload, startWorkload } from "./sysbench-workload";
import { toolOutputsDir } from "./tool-outputs";

const options = parseLiveOptions(process.argv.slice(2));
requirePrograms(options);
const outDir = resolve(options.outDir);
const t0 = performance.now();
const clockMs = () => performance.now() - t0;

// What is running, so that any way out (end, error, Ctrl-C) ends it, each process by its PID.
let servers: Partial<PrivateServers> = {};
let archiver: ArchiverRunner | undefined;
let samplers: Samplers | undefined;
let workload: RunningWorkload | undefined;
let baseDir: string | undefined;
let outputs: Awaited<ReturnType<typeof toolOutputsDir>> | undefined;
let shutdown: Promise<void> | undefined;
// A failed run keeps the servers' directories: their error logs say what went wrong.
let failed = false;
const shutDown = () => {
  shutdown ??= (async () => {
    await workload?.stop().catch(() => {});
    await samplers?.stop().catch(() => {});
    await archiver?.close().catch((error: unknown) => console.error("closing the archiver:", error));
    await servers.primary?.stop().catch(() => {});
    await servers.replica?.stop().catch(() => {});
    await stopAllProcesses();
    await outputs?.remove().catch(() => {});
    if (baseDir && !options.keep && !failed) await rm(baseDir, { recursive: true, force: true });
    else if (baseDir) console.log(`kept the servers' directories: ${baseDir}`);
  })();
  return shutdown;
};
onInterrupt(shutDown);

try {
  await main();
} catch (error) {
  console.error(error);
  failed = true;
  process.exitCode = 1;
} finally {
  await shutDown();
}

async function main(): Promise<void> {
  await mkdir(outDir, { recursive: true });
  baseDir = await mkdtemp(join(tmpdir(), "bench-live-"));
  // mariadbd runs as the mysql user and must reach its directory inside this one.
  await chmod(baseDir, 0o755);
  const size = { days: options.days, rowsPerDay: options.rowsPerDay };
  const machine = {
    cores: availableParallelism(),
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    loadAverageAtStart: loadavg().map((n) => Math.round(n * 100) / 100),
    pinned: options.pin,
  };
  console.log(
    `live bench: ${size.days} days × ${size.rowsPerDay.toLocaleString("en-US")} rows, ` +
      `${machine.cores} cores, load average ${machine.loadAverageAtStart.join(" ")}${options.pin ? ", pinned" : ""}`,
  );
  const ready = await setUpPrivateServers({
    baseDir,
    pin: options.pin,
    size,
    started: (s) => (servers = s),
    // Nothing measured after a server died means anything: say why, end the rest, keep its log.
    onUnexpectedExit: (name, log) => {
      console.error(`\nThe ${name} server ended on its own, ${log}`);
      failed = true;
      void shutDown().finally(() => process.exit(1));
    },
  });
  const { primary, replica } = ready;
  outputs = await toolOutputsDir(baseDir);
  console.log(`the archiver's warehouse and pt-archiver's --file: ${outputs.where}`);
  archiver = await startArchiver({ primary, replica, warehouseDir: outputs.dir, clockMs });
  console.log(`archiver settings: ${JSON.stringify(archiver.settings)}`);
  // Not measured: the partitioned table's days copied before the workload starts, so its phase is the cleanup alone.
  const partitionedCopy = await archiver.copyAll(size.days, PARTITIONED_TABLE);
  console.log(
    `[setup] ${PARTITIONED_TABLE} copied by the archiver (not measured): ` +
      `${partitionedCopy.rows.toLocaleString("en-US")} rows in ${partitionedCopy.seconds.toFixed(1)} s` +
      `${partitionedCopy.detail ? `, ${partitionedCopy.detail}` : ""}`,
  );
  samplers = await startSamplers(primary, replica, clockMs);
  workload = startWorkload(primary, clockMs, options.pin ? 0 : undefined);
  await sleep(5_000); // sysbench's connections and first transactions warm the buffer pool; not measured.

  const phases: Phase[] = [];
  const primaryCpu = () => processCpuSeconds(String(primary.pid)) ?? 0;
  const at = (
    name: string,
    tool: Phase["tool"],
    startMs: number,
    rows: number,
    cpuAtStart: number,
    maxRowsPerSecond?: number,
  ): Phase => {
    const phase = {
      name,
      tool,
      startMs,
      endMs: clockMs(),
      rows,
      windowEndMs: clockMs(),
      primaryCpuSeconds: primaryCpu() - cpuAtStart,
      ...(maxRowsPerSecond ? { maxRowsPerSecond } : {}),
    };
    phases.push(phase);
    const capped = maxRowsPerSecond ? ` (cap ${maxRowsPerSecond.toLocaleString("en-US")} rows/s)` : "";
    console.log(
      `[phase] ${name}: ${rows.toLocaleString("en-US")} rows in ${((phase.endMs - startMs) / 1000).toFixed(1)} s${capped}`,
    );
    return phase;
  };
  const baselineStart = clockMs();
  const baselineCpu = primaryCpu();
  await sleep(options.baselineSeconds * 1000);
  const baseline = at("baseline", "none", baselineStart, 0, baselineCpu);
  // A gap ends once the purge debt is back near what the workload alone left during the baseline.
  const baselineHistory = Math.max(
    0,
    ...samplers.status.filter((s) => s.atMs >= baselineStart).map((s) => s.historyLength),
  );
  const gapLimits = {
    minSeconds: options.gapSeconds,
    maxSeconds: options.maxGapSeconds,
    history: Math.round(1.5 * baselineHistory) + 100,
  };
  const gapConnection = await primary.connect();
  const gapAfter = async (phase: Phase) => {
    const gap = await quietGap(samplers as Samplers, gapConnection, gapLimits);
    phase.windowEndMs = clockMs();
    console.log(
      `[gap] ${gap.seconds.toFixed(1)} s${gap.unsettled ? ` (went on at the limit: ${gap.unsettled})` : ""}`,
    );
  };
  const run = async (
    name: string,
    tool: Phase["tool"],
    work: () => Promise<ToolRun>,
    maxRowsPerSecond?: number,
  ): Promise<Phase> => {
    const startMs = clockMs();
    const cpuAtStart = primaryCpu();
    const result = await work();
    if (result.detail && tool === "archiver") console.log(`  ${result.detail}`);
    const phase = at(name, tool, startMs, result.rows, cpuAtStart, maxRowsPerSecond);
    await gapAfter(phase);
    return phase;
  };
  // The archiver at pt-archiver's pace, on rows of its own: the cap is the rate pt-archiver's phase just reached.
  const runCapped = async (name: string, peer: Phase, work: (cap: number) => Promise<ToolRun>) => {
    const cap = capFrom(peer);
    if (cap === undefined)
      console.log(`[phase] ${name}: skipped, ${peer.name} moved no rows to take a rate from`);
    else await run(name, "archiver", () => work(cap), cap);
  };
  await gapAfter(baseline);
  const where = `${FILTER_COLUMN} < '${endOfData(size)}'`;
  const active = archiver;
  // --partition-phase: the baseline and the partition cleanup alone.
  if (!options.partitionPhase) {
    await run("archiver copy", "archiver", () => active.copyAll(size.days));
    const ptCopy = await run("pt-archiver copy", "pt-archiver", () =>
      ptArchiverCopy(primary, {
        database: LIVE_DATABASE,
        table: PT_TABLE,
        where,
        file: join(outputs?.dir ?? baseDir ?? "", "pt-copy.txt"),
      }),
    );
    await runCapped("archiver capped copy", ptCopy, (cap) => active.copyAll(size.days, CAPPED_TABLE, cap));
    await run("archiver cleanup", "archiver", () => active.cleanupAll());
    const ptPurge = await run("pt-archiver purge", "pt-archiver", () =>
      ptArchiverPurge(primary, { database: LIVE_DATABASE, table: PT_TABLE, where }),
    );
    await runCapped("archiver capped cleanup", ptPurge, (cap) => active.cleanupAll(CAPPED_TABLE, cap));
  }
  await run("archiver partition cleanup", "archiver", () => active.cleanupAll(PARTITIONED_TABLE));
  await gapConnection.end();
  await workload.stop();
  await samplers.stop();

  const check = await primary.connect();
  const left = {
    [ARCHIVER_TABLE]: await countRows(check, ARCHIVER_TABLE),
    [PT_TABLE]: await countRows(check, PT_TABLE),
    [CAPPED_TABLE]: await countRows(check, CAPPED_TABLE),
    [PARTITIONED_TABLE]: await countRows(check, PARTITIONED_TABLE),
  };
  const partitionsLeft = await partitionRows(check);
  const twins = await leftTwins(check);
  await check.end();
  const ran = { options, outDir, workload, samplers, archiver };
  report(ran, { phases, machine: { ...machine, mariadb: ready.version }, left, rows: ready.rows });
  partitionReport(ran, partitionsLeft, twins);
  await writeOutputs(ran, phases, machine, ready.version);
}
