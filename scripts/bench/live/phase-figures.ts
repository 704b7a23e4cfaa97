import type { CleanedDay } from "./archiver-runs";
import type { HostCounters, LagSample, StatusSample } from "./server-samplers";
import type { WorkloadSecond } from "./sysbench-workload";

/** One stretch of the timeline: a tool at work, or the quiet baseline. */
export interface Phase {
  readonly name: string;
  readonly tool: "none" | "archiver" | "pt-archiver";
  readonly startMs: number;
  readonly endMs: number;
  /** Rows the tool copied or deleted (0 for the baseline). */
  readonly rows: number;
  /** Where the quiet gap after it ends: lag, purge debt and catch-up are read up to here. */
  windowEndMs: number;
  /** CPU seconds the primary's process used from the phase's start to its end (the workload's share included). */
  readonly primaryCpuSeconds?: number;
  /** The table-wide rate cap the tool's message carried (`max_rows_per_second`), if any. */
  readonly maxRowsPerSecond?: number;
}

/** A replica within this of the primary counts as caught up (the heartbeat is written every 100 ms). */
export const CAUGHT_UP_MS = 250;

export interface PhaseFigures {
  readonly name: string;
  readonly rows: number;
  readonly seconds: number;
  readonly rowsPerSecond: number;
  /** The phase's rate cap (`max_rows_per_second`), if it had one. */
  readonly maxRowsPerSecond?: number;
  /** Median over the phase of sysbench's per-second p99. */
  readonly p99MedianMs: number;
  readonly worstSecondMs: number;
  readonly worstSecondAtMs: number;
  readonly tps: number;
  /** Worst heartbeat lag from the phase's start to the end of its gap. */
  readonly worstLagMs: number;
  /** From the phase's end until the replica is within CAUGHT_UP_MS; undefined when it never was in the gap. */
  readonly catchUpMs: number | undefined;
  readonly worstHistory: number;
  /** Highest checkpoint age during the phase, as a share of the redo log. */
  readonly worstRedoPercent: number;
  /**
   * The primary's CPU per row the tool moved, beyond what the workload alone costs it (its CPU a second
   * during the baseline, taken off): what the tool itself asks of the primary, whatever the machine's noise.
   */
  readonly primaryCpuMicrosPerRow?: number;
  /**
   * The host's CPU steal, CPU pressure and I/O full stall (see HostCounters), in ms a second over the phase,
   * to set the worst second's against; each undefined where the host does not count it.
   */
  readonly hostPerSecond: HostCounters;
  /**
   * The most rows deleted in any second of the phase (from one status sample to the first at least a second
   * later, as a rate), the workload's own deletes included: what a cap's "no second above 1.5×" is read from.
   */
  readonly busiestDeletesPerSecond: number;
  /** What the servers and the archiver showed around the worst second. */
  readonly worstSecond: WorstSecond;
}

export interface WorstSecond {
  readonly redoPercent: number;
  readonly threadsRunning: number;
  readonly rowLockWaits: number;
  readonly historyLength: number;
  /** Slowest answer to SHOW GLOBAL STATUS: a server that stalls everyone answers late too. */
  readonly statusQueryMs: number;
  /** Pages read from disk per second over those samples: a buffer pool that no longer holds what is read. */
  readonly diskReadsPerSecond: number;
  readonly workloadQueue: number;
  /**
   * How much the host's CPU steal, CPU pressure and I/O full stall grew over those samples, in ms (see
   * HostCounters): a VM its host paused, or a disk that stalled, rather than the tool. Undefined where not counted.
   */
  readonly host: HostCounters;
  readonly longRunning: readonly string[];
  /** Cleanup days of this phase logged near it, longest chunk first. */
  readonly cleanedDays: readonly string[];
}

export interface Timeline {
  readonly workload: readonly WorkloadSecond[];
  readonly lag: readonly LagSample[];
  readonly status: readonly StatusSample[];
  readonly redoLogBytes: number;
  readonly cleanedDays: readonly CleanedDay[];
}

export function phaseFigures(phase: Phase, timeline: Timeline, baseline?: Phase): PhaseFigures {
  // A report covers the second before it arrived; it belongs to the phase when that second overlaps it.
  const seconds = timeline.workload.filter((s) => s.atMs > phase.startMs && s.atMs - 1000 < phase.endMs);
  const worst = seconds.reduce<WorkloadSecond | undefined>(
    (w, s) => (!w || s.p99Ms > w.p99Ms ? s : w),
    undefined,
  );
  const inWindow = <T extends { atMs: number }>(list: readonly T[], from: number, to: number) =>
    list.filter((s) => s.atMs >= from && s.atMs <= to);
  const lag = inWindow(timeline.lag, phase.startMs, phase.windowEndMs);
  const status = inWindow(timeline.status, phase.startMs, phase.endMs);
  const redoPercent = (age: number) => (100 * age) / timeline.redoLogBytes;
  const caughtUp = timeline.lag.find(
    (s) =>
      s.atMs >= phase.endMs &&
      s.atMs <= phase.windowEndMs &&
      s.lagMs !== undefined &&
      s.lagMs <= CAUGHT_UP_MS,
  );
  const durationSeconds = (phase.endMs - phase.startMs) / 1000;
  return {
    name: phase.name,
    rows: phase.rows,
    seconds: durationSeconds,
    rowsPerSecond: phase.rows / durationSeconds,
    ...(phase.maxRowsPerSecond ? { maxRowsPerSecond: phase.maxRowsPerSecond } : {}),
    p99MedianMs: median(seconds.map((s) => s.p99Ms)),
    worstSecondMs: worst?.p99Ms ?? Number.NaN,
    worstSecondAtMs: worst?.atMs ?? Number.NaN,
    tps: seconds.reduce((sum, s) => sum + s.tps, 0) / Math.max(1, seconds.length),
    worstLagMs: Math.max(0, ...lag.map((s) => s.lagMs ?? Number.POSITIVE_INFINITY)),
    catchUpMs: caughtUp ? Math.max(0, caughtUp.atMs - phase.endMs) : undefined,
    worstHistory: Math.max(
      0,
      ...inWindow(timeline.status, phase.startMs, phase.windowEndMs).map((s) => s.historyLength),
    ),
    worstRedoPercent: Math.max(0, ...status.map((s) => redoPercent(s.checkpointAge))),
    ...primaryCpu(phase, durationSeconds, baseline),
    hostPerSecond: hostCounters(status, "per second"),
    busiestDeletesPerSecond: busiestSecond(status, (s) => s.rowsDeleted),
    worstSecond: aroundWorstSecond(worst, phase, timeline, redoPercent),
  };
}

function primaryCpu(phase: Phase, seconds: number, baseline: Phase | undefined) {
  if (phase.rows === 0 || phase.primaryCpuSeconds === undefined || baseline?.primaryCpuSeconds === undefined)
    return {};
  const workloadPerSecond = baseline.primaryCpuSeconds / ((baseline.endMs - baseline.startMs) / 1000);
  const tool = Math.max(0, phase.primaryCpuSeconds - workloadPerSecond * seconds);
  return { primaryCpuMicrosPerRow: (tool / phase.rows) * 1e6 };
}

/** The status samples from two seconds before the worst second's report to half a second after it. */
function aroundWorstSecond(
  worst: WorkloadSecond | undefined,
  phase: Phase,
  timeline: Timeline,
  redoPercent: (age: number) => number,
): WorstSecond {
  const at = worst?.atMs ?? Number.NaN;
  const near = timeline.status.filter((s) => s.atMs >= at - 2000 && s.atMs <= at + 500);
  const max = (pick: (s: StatusSample) => number) => Math.max(0, ...near.map(pick));
  return {
    redoPercent: redoPercent(max((s) => s.checkpointAge)),
    threadsRunning: max((s) => s.threadsRunning),
    rowLockWaits: max((s) => s.rowLockWaits),
    historyLength: max((s) => s.historyLength),
    statusQueryMs: max((s) => s.queryMs),
    diskReadsPerSecond: perSecond(near, (s) => s.diskReads),
    workloadQueue: worst?.queueLength ?? 0,
    host: hostCounters(near, "grown"),
    longRunning: [...new Set(near.flatMap((s) => s.longRunning))].slice(0, 8),
    // The three days with the longest chunks logged within 1.5 s of it: a long chunk holds its locks and redo.
    cleanedDays: timeline.cleanedDays
      .filter((d) => Math.abs(d.atMs - at) <= 1500 && d.atMs >= phase.startMs && d.atMs <= phase.endMs + 1000)
      .sort((a, b) => b.longestChunkMs - a.longestChunkMs)
      .slice(0, 3)
      .map(
        (d) => `${d.day}: ${d.durationMs} ms, longest chunk ${d.longestChunkMs} ms, waited ${d.waitedMs} ms`,
      ),
  };
}

export interface GoalRatios {
  readonly cleanupRate: number;
  readonly cleanupP99: number;
  readonly copyRate: number;
  readonly copyP99: number;
}

/** The goal's two pairs: the archiver against pt-archiver, same run, same workload. */
export function goalRatios(figures: ReadonlyMap<string, PhaseFigures>): GoalRatios {
  const ratio = (a: string, b: string, pick: (f: PhaseFigures) => number) => {
    const top = figures.get(a);
    const bottom = figures.get(b);
    return top && bottom ? pick(top) / pick(bottom) : Number.NaN;
  };
  return {
    cleanupRate: ratio("archiver cleanup", "pt-archiver purge", (f) => f.rowsPerSecond),
    cleanupP99: ratio("archiver cleanup", "pt-archiver purge", (f) => f.p99MedianMs),
    copyRate: ratio("archiver copy", "pt-archiver copy", (f) => f.rowsPerSecond),
    copyP99: ratio("archiver copy", "pt-archiver copy", (f) => f.p99MedianMs),
  };
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * How much each of the host's counters grew over these samples, in whole ms, or how fast, in ms a second to
 * 0.1 ms; undefined for a counter fewer than two samples have.
 */
function hostCounters(samples: readonly StatusSample[], as: "grown" | "per second"): HostCounters {
  const figure = (pick: (s: StatusSample) => number | undefined) => {
    const grown = growth(samples, pick);
    if (!grown) return undefined;
    if (as === "grown") return Math.round(grown.by);
    return grown.overMs > 0 ? Math.round((grown.by * 10_000) / grown.overMs) / 10 : undefined;
  };
  return {
    stealMs: figure((s) => s.stealMs),
    cpuSomeStallMs: figure((s) => s.cpuSomeStallMs),
    ioFullStallMs: figure((s) => s.ioFullStallMs),
  };
}

/**
 * How much a cumulative counter grew from the first sample that has it to the last, and over how long;
 * undefined with fewer than two such samples.
 */
function growth(
  samples: readonly StatusSample[],
  pick: (s: StatusSample) => number | undefined,
): { by: number; overMs: number } | undefined {
  const counted = samples.filter((s) => pick(s) !== undefined);
  const first = counted[0];
  const last = counted.at(-1);
  if (!first || !last || first === last) return undefined;
  return { by: Math.max(0, (pick(last) ?? 0) - (pick(first) ?? 0)), overMs: last.atMs - first.atMs };
}

/**
 * The fastest a cumulative counter grew over any second: from each sample to the first one at least a
 * second after it, a second; 0 without two such samples.
 */
function busiestSecond(samples: readonly StatusSample[], pick: (s: StatusSample) => number): number {
  let busiest = 0;
  for (const [i, from] of samples.entries()) {
    const to = samples.slice(i + 1).find((s) => s.atMs - from.atMs >= 1000);
    if (!to) break;
    busiest = Math.max(busiest, ((pick(to) - pick(from)) * 1000) / (to.atMs - from.atMs));
  }
  return Math.round(busiest);
}

/** How fast a cumulative counter grew from the first sample to the last, a second. */
function perSecond(samples: readonly StatusSample[], pick: (s: StatusSample) => number): number {
  const grown = growth(samples, pick);
  return grown && grown.overMs > 0 ? Math.round((grown.by * 1000) / grown.overMs) : 0;
}
