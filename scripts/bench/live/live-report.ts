/**
 * What `pnpm bench live` prints and writes once its phases are over: a table
 * per phase, the goal's ratios against pt-archiver (and, for the capped
 * phases, at pt-archiver's own rate), how the partitioned table
 * was emptied, and the workload's p99 chart (SVG) with the figures and samples (JSON).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ArchiverRunner } from "./archiver-runs";
import { PARTITIONED_TABLE } from "./bench-tables";
import { cappedLines, cappedRatios } from "./capped-phases";
import {
  CATCH_UP_NOTE,
  lagRiseLines,
  limitLines,
  partitionGoalLine,
  phaseTable,
  ratioLines,
  worstSecondLines,
} from "./figures-report";
import type { LiveOptions } from "./live-options";
import { p99ChartSvg } from "./p99-chart-svg";
import { goalRatios, type Phase, type PhaseFigures, phaseFigures } from "./phase-figures";
import type { Samplers } from "./server-samplers";
import { type RunningWorkload, WORKLOAD } from "./sysbench-workload";

/** What the report reads: the options the run had, where its outputs go, and what ran and measured it. */
export interface LiveRun {
  readonly options: LiveOptions;
  readonly outDir: string;
  readonly workload: RunningWorkload | undefined;
  readonly samplers: Samplers | undefined;
  readonly archiver: ArchiverRunner | undefined;
}

function figuresOf(
  run: LiveRun,
  phases: readonly Phase[],
): { figures: PhaseFigures[]; baselineP99Ms: number } {
  const { workload, samplers, archiver } = run;
  const timeline = {
    workload: workload?.seconds ?? [],
    lag: samplers?.lag ?? [],
    status: samplers?.status ?? [],
    redoLogBytes: samplers?.redoLogBytes ?? 1,
    cleanedDays: archiver?.cleanedDays ?? [],
  };
  const figures = phases.map((phase) => phaseFigures(phase, timeline, phases[0]));
  return { figures, baselineP99Ms: figures[0]?.p99MedianMs ?? Number.NaN };
}

export function report(
  run: LiveRun,
  input: { phases: readonly Phase[]; machine: object; left: object; rows: number },
): void {
  const { samplers } = run;
  const { figures, baselineP99Ms } = figuresOf(run, input.phases);
  console.log(
    `\nWorkload: sysbench oltp_read_write, ${WORKLOAD.threads} threads at ${WORKLOAD.rate} tps, ` +
      `${WORKLOAD.tables} tables of ${WORKLOAD.tableSize.toLocaleString("en-US")} rows; ` +
      `table of ${input.rows.toLocaleString("en-US")} rows. Machine: ${JSON.stringify(input.machine)}\n`,
  );
  console.log(phaseTable(figures, baselineP99Ms));
  console.log(`\n${CATCH_UP_NOTE}; lag and history are read from the phase's start to the end of its gap.`);
  console.log(`rows left: ${JSON.stringify(input.left)} (pt-archiver keeps the highest key)\n`);
  console.log("Goal (against pt-archiver, this run):");
  for (const line of ratioLines(goalRatios(new Map(figures.map((f) => [f.name, f])))))
    console.log(`  ${line}`);
  for (const line of cappedLines(cappedRatios(new Map(figures.map((f) => [f.name, f])))))
    console.log(`  ${line}`);
  for (const line of limitLines(figures, baselineP99Ms)) console.log(`  ${line}`);
  console.log(
    `  ${partitionGoalLine(
      figures.find((f) => f.name === "archiver partition cleanup"),
      baselineP99Ms,
    )}`,
  );
  console.log("\nAround each phase's worst second:");
  for (const line of worstSecondLines(figures)) console.log(`  ${line}`);
  const lagLines = lagRiseLines(input.phases, samplers?.lag ?? [], samplers?.replica ?? []);
  if (lagLines.length > 0) console.log("\nWhere the replica fell behind by more than 0.5 s:");
  for (const line of lagLines) console.log(`  ${line}`);
}

/** How the partitioned table was emptied: the partitions exchanged out, any chunked instead, and what is left. */
export function partitionReport(
  run: LiveRun,
  left: readonly { partition: string; rows: number }[],
  twins: readonly string[],
): void {
  const { archiver } = run;
  const exchanged = (archiver?.cleanedPartitions ?? []).filter((p) => p.table === PARTITIONED_TABLE);
  console.log(
    `\n${PARTITIONED_TABLE}: ${exchanged.length} partitions exchanged ("cleaned partition"), ` +
      `${exchanged.reduce((n, p) => n + p.days, 0)} days, ` +
      `${exchanged.reduce((n, p) => n + p.rowsDeleted, 0).toLocaleString("en-US")} rows`,
  );
  for (const p of exchanged) {
    const detached =
      p.detachedAtMs === undefined ? "" : `, exchanged at ${(p.detachedAtMs / 1000).toFixed(1)} s`;
    console.log(
      `  ${p.partition}: ${p.days} days, ${p.rowsDeleted.toLocaleString("en-US")} rows${detached}, ` +
        `cleaned at ${(p.atMs / 1000).toFixed(1)} s`,
    );
  }
  for (const reason of archiver?.chunkedPartitions ?? []) console.log(`  chunked path instead: ${reason}`);
  console.log(`  rows left by partition: ${left.map((p) => `${p.partition} ${p.rows}`).join(", ")}`);
  console.log(`  twin tables left: ${twins.length ? twins.join(", ") : "none"}`);
}

export async function writeOutputs(
  run: LiveRun,
  phases: readonly Phase[],
  machine: object,
  version: string,
): Promise<void> {
  const { options, outDir, workload, samplers, archiver } = run;
  const { figures, baselineP99Ms } = figuresOf(run, phases);
  const svgPath = join(outDir, "bench-live.svg");
  const date = new Date().toISOString().slice(0, 10);
  await writeFile(
    svgPath,
    p99ChartSvg({
      workload: workload?.seconds ?? [],
      phases,
      baselineP99Ms,
      title: `pnpm bench live${options.pin ? " --pin" : ""}, ${date}: workload p99 per second (baseline median ${baselineP99Ms.toFixed(1)} ms), MariaDB ${version.split("-")[0]}`,
    }),
  );
  const resultsPath = join(outDir, "bench-live.json");
  await writeFile(
    resultsPath,
    `${JSON.stringify(
      {
        date,
        options,
        machine: { ...machine, mariadb: version },
        settings: archiver?.settings,
        figures,
        ratios: goalRatios(new Map(figures.map((f) => [f.name, f]))),
        capped: cappedRatios(new Map(figures.map((f) => [f.name, f]))),
        baselineP99MedianMs: baselineP99Ms,
        phases,
        samples: {
          workload: workload?.seconds,
          lag: samplers?.lag,
          status: samplers?.status,
          replica: samplers?.replica,
        },
        cleanedDays: archiver?.cleanedDays,
        cleanedPartitions: archiver?.cleanedPartitions,
        chunkedPartitions: archiver?.chunkedPartitions,
      },
      null,
      1,
    )}\n`,
  );
  console.log(`\nchart: ${svgPath}\nfigures and samples: ${resultsPath}`);
}
