import { CAUGHT_UP_MS, type GoalRatios, type Phase, type PhaseFigures } from "./phase-figures";
import type { HostCounters, LagSample, ReplicaSample } from "./server-samplers";

/** The issue's goal, printed beside the figures: a measurement tool shows targets, it does not fail on them. */
export const GOAL = {
  cleanupRate: 1.5,
  cleanupP99: 1.1,
  copyRate: 2,
  copyP99: 1.1,
  worstSecondTimesBaseline: 10,
  replicaLagMs: 1000,
  /** The archiver's partition cleanup (whole partitions exchanged out): p99 against the baseline's. */
  partitionP99TimesBaseline: 1.2,
  partitionReplicaLagMs: 500,
} as const;

const fixed = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : "-";

/** One row per phase, as a Markdown table (readable in a terminal, pasteable into docs/benchmarks.md). */
export function phaseTable(figures: readonly PhaseFigures[], baselineP99Ms: number): string {
  const header = [
    "phase",
    "rows",
    "seconds",
    "rows/s",
    "p99 median ms (× baseline)",
    "worst second ms (× baseline)",
    "tps",
    "worst lag s",
    "catch-up s",
    "worst history",
    "worst redo %",
    "primary CPU µs/row",
  ];
  const rows = figures.map((f) => [
    f.name,
    fixed(f.rows),
    fixed(f.seconds, 1),
    f.rows
      ? `${fixed(f.rowsPerSecond)}${f.maxRowsPerSecond ? ` (cap ${fixed(f.maxRowsPerSecond)})` : ""}`
      : "-",
    `${fixed(f.p99MedianMs, 1)} (${fixed(f.p99MedianMs / baselineP99Ms, 1)}×)`,
    `${fixed(f.worstSecondMs, 1)} (${fixed(f.worstSecondMs / baselineP99Ms, 1)}×)`,
    fixed(f.tps, 1),
    fixed(f.worstLagMs / 1000, 2),
    f.catchUpMs === undefined ? "not in gap" : fixed(f.catchUpMs / 1000, 1),
    fixed(f.worstHistory),
    fixed(f.worstRedoPercent),
    f.primaryCpuMicrosPerRow === undefined ? "-" : fixed(f.primaryCpuMicrosPerRow, 1),
  ]);
  return [header, header.map(() => "---"), ...rows].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}

/** The goal's ratios, each with its target and whether this run met it. */
export function ratioLines(ratios: GoalRatios): string[] {
  const line = (label: string, value: number, target: string, met: boolean) =>
    `${label.padEnd(48)} ${fixed(value, 2).padStart(6)}×   goal ${target.padEnd(8)} ${Number.isFinite(value) ? (met ? "met" : "not met") : ""}`;
  return [
    line(
      "cleanup rate ÷ pt-archiver --purge rate",
      ratios.cleanupRate,
      `≥ ${GOAL.cleanupRate}`,
      ratios.cleanupRate >= GOAL.cleanupRate,
    ),
    line(
      "cleanup p99 ÷ pt-archiver --purge p99",
      ratios.cleanupP99,
      `≤ ${GOAL.cleanupP99}`,
      ratios.cleanupP99 <= GOAL.cleanupP99,
    ),
    line(
      "copy rate ÷ pt-archiver --no-delete --file rate",
      ratios.copyRate,
      `≥ ${GOAL.copyRate}`,
      ratios.copyRate >= GOAL.copyRate,
    ),
    line(
      "copy p99 ÷ pt-archiver --no-delete --file p99",
      ratios.copyP99,
      `≤ ${GOAL.copyP99}`,
      ratios.copyP99 <= GOAL.copyP99,
    ),
  ];
}

/** Stalls (a second over 10× the baseline p99) and lag over 1 s, per phase. */
export function limitLines(figures: readonly PhaseFigures[], baselineP99Ms: number): string[] {
  const width = Math.max(20, ...figures.map((f) => f.name.length));
  return figures.slice(1).map((f) => {
    const times = f.worstSecondMs / baselineP99Ms;
    return (
      `${f.name.padEnd(width)} worst second ${fixed(times, 1)}× baseline (goal ≤ ${GOAL.worstSecondTimesBaseline}×: ` +
      `${times <= GOAL.worstSecondTimesBaseline ? "met" : "not met"}), worst lag ${fixed(f.worstLagMs / 1000, 2)} s ` +
      `(≤ ${GOAL.replicaLagMs / 1000} s where a replica throttle is set)`
    );
  });
}

/** What the primary showed around each phase's worst second, to tell a redo flush from a lock or purge debt. */
export function worstSecondLines(figures: readonly PhaseFigures[]): string[] {
  const lines: string[] = [];
  for (const f of figures) {
    const w = f.worstSecond;
    lines.push(
      `${f.name}: worst second ${fixed(f.worstSecondMs, 1)} ms — redo checkpoint age ${fixed(w.redoPercent)}% of the log, ` +
        `Threads_running ≤ ${w.threadsRunning}, row lock waits ≤ ${w.rowLockWaits}, history ${fixed(w.historyLength)}, ` +
        `status answered in ≤ ${w.statusQueryMs} ms, ${w.diskReadsPerSecond} pages read from disk a second, ` +
        `workload queue ${w.workloadQueue}${hostPart(f)}`,
    );
    for (const statement of w.longRunning) lines.push(`    running > 200 ms: ${statement}`);
    for (const day of w.cleanedDays) lines.push(`    cleanup day nearby: ${day}`);
  }
  return lines;
}

/**
 * The host's CPU steal, CPU pressure and I/O full stall over the samples around the worst second (the same
 * ~2.5 s as the figures before it), beside their average over the phase: a second far above the phase's
 * average points at the VM's host or the disk rather than the tool. Empty where the host does not count them.
 */
function hostPart(f: PhaseFigures): string {
  const shown = (Object.keys(HOST_LABELS) as (keyof HostCounters)[]).filter(
    (counter) => f.worstSecond.host[counter] !== undefined,
  );
  if (shown.length === 0) return "";
  const around = shown.map((c) => `${HOST_LABELS[c]} ${fixed(f.worstSecond.host[c] ?? Number.NaN)} ms`);
  const average = shown.map((c) => fixed(f.hostPerSecond[c] ?? Number.NaN, 1));
  return `, host: ${around.join(", ")} in the 2.5 s around it (phase average: ${average.join(" / ")} ms a second)`;
}

const HOST_LABELS: Record<keyof HostCounters, string> = {
  stealMs: "CPU steal",
  cpuSomeStallMs: "CPU pressure",
  ioFullStallMs: "I/O full stall",
};

export const CATCH_UP_NOTE = `catch-up: from the phase's end until the heartbeat shows the replica within ${CAUGHT_UP_MS} ms`;

/** The partition cleanup's goal: its p99 median against the baseline's, and its worst replica lag. */
export function partitionGoalLine(figures: PhaseFigures | undefined, baselineP99Ms: number): string {
  const label = `partition cleanup: p99 <= ${GOAL.partitionP99TimesBaseline}x baseline p99, replica lag < ${GOAL.partitionReplicaLagMs / 1000} s`;
  if (!figures) return `${label}: not measured`;
  const times = figures.p99MedianMs / baselineP99Ms;
  const p99Met = times <= GOAL.partitionP99TimesBaseline;
  const lagMet = figures.worstLagMs < GOAL.partitionReplicaLagMs;
  return (
    `${label}: p99 ${fixed(figures.p99MedianMs, 1)} ms vs baseline ${fixed(baselineP99Ms, 1)} ms = ` +
    `${fixed(times, 2)}× (${p99Met ? "met" : "not met"}), worst replica lag ${fixed(figures.worstLagMs / 1000, 2)} s ` +
    `(${lagMet ? "met" : "not met"})`
  );
}

/**
 * For each phase whose replica lag passed 0.5 s: when the lag began to rise
 * and how high it went, what the replica's SQL thread was doing meanwhile and
 * how full the replica's own redo log was (a replica flushing its log stops
 * applying, whatever the tool on the primary does).
 */
export function lagRiseLines(
  phases: readonly Phase[],
  lag: readonly LagSample[],
  replica: readonly ReplicaSample[],
): string[] {
  const lines: string[] = [];
  for (const phase of phases) {
    const seen = lag.filter(
      (s) => s.atMs >= phase.startMs && s.atMs <= phase.windowEndMs && s.lagMs !== undefined,
    );
    const worst = seen.reduce<LagSample | undefined>(
      (w, s) => ((s.lagMs ?? 0) > (w?.lagMs ?? 0) ? s : w),
      undefined,
    );
    if (!worst || (worst.lagMs ?? 0) < 500) continue;
    const rise = seen.filter((s) => s.atMs <= worst.atMs && (s.lagMs ?? 0) < 250).at(-1) ?? seen[0];
    const during = replica.filter((s) => s.atMs >= (rise?.atMs ?? 0) && s.atMs <= worst.atMs);
    const states = new Map<string, number>();
    for (const s of during) {
      const state = s.sqlThread.replace(/\(\d+ ms: /, "(");
      states.set(state, (states.get(state) ?? 0) + 1);
    }
    const at = (ms: number) => `${((ms - phase.startMs) / 1000).toFixed(1)} s`;
    lines.push(
      `${phase.name}: from ${at(rise?.atMs ?? phase.startMs)} to ${at(worst.atMs)} into the phase the lag rose to ` +
        `${((worst.lagMs ?? 0) / 1000).toFixed(2)} s; replica redo up to ` +
        `${Math.round(Math.max(0, ...during.map((s) => s.redoPercent)))}% of its log; its SQL thread: ` +
        [...states].map(([state, n]) => `${state || "(no state)"} ×${n}`).join(", "),
    );
  }
  return lines;
}
