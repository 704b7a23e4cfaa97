import type { PhaseFigures } from "./phase-figures";

/**
 * The archiver's capped phases: the same work as its copy and cleanup, on
 * fresh rows (CAPPED_TABLE), with the message's `max_rows_per_second` set to
 * the rate pt-archiver reached in the same run (its copy's for the copy, its
 * purge's for the cleanup), so that the workload's p99 is compared at the same pace.
 */
export const CAPPED_PHASES = [
  { name: "archiver capped copy", peer: "pt-archiver copy", label: "capped copy" },
  { name: "archiver capped cleanup", peer: "pt-archiver purge", label: "capped cleanup" },
] as const;

/**
 * The goal at the same pace: p99 at most 1.05× pt-archiver's; the rate, averaged over the phase, within 1.1×
 * of the cap; no second above 1.5× the cap (read for the cleanup, whose deletes the server counts apart).
 */
export const CAPPED_GOAL = { p99: 1.05, rateToCap: 1.1, busiestToCap: 1.5 } as const;

export interface CappedRatios {
  readonly name: string;
  /** The cap the message carried: pt-archiver's rows/s in its phase, rounded. */
  readonly capRowsPerSecond: number;
  readonly rowsPerSecond: number;
  /** rows/s ÷ cap: 1 is the cap exactly, above it the cap was not held, below it the archiver fell short. */
  readonly rateToCap: number;
  /** The workload's p99 median in this phase ÷ in pt-archiver's. */
  readonly p99: number;
  /** The cleanup's busiest second of deletes ÷ the cap; undefined for the copy. */
  readonly busiestToCap?: number;
}

/** The cap a capped phase takes from pt-archiver's phase: its rows/s, whole, at least 1; undefined without rows. */
export function capFrom(peer: { rows: number; startMs: number; endMs: number }): number | undefined {
  const rate = peer.rows / ((peer.endMs - peer.startMs) / 1000);
  return Number.isFinite(rate) && rate > 0 ? Math.max(1, Math.round(rate)) : undefined;
}

export function cappedRatios(figures: ReadonlyMap<string, PhaseFigures>): CappedRatios[] {
  return CAPPED_PHASES.flatMap(({ name, peer }) => {
    const capped = figures.get(name);
    const theirs = figures.get(peer);
    if (!capped || !theirs || !capped.maxRowsPerSecond) return [];
    return [
      {
        name,
        capRowsPerSecond: capped.maxRowsPerSecond,
        rowsPerSecond: capped.rowsPerSecond,
        rateToCap: capped.rowsPerSecond / capped.maxRowsPerSecond,
        p99: capped.p99MedianMs / theirs.p99MedianMs,
        ...(name === "archiver capped cleanup"
          ? { busiestToCap: capped.busiestDeletesPerSecond / capped.maxRowsPerSecond }
          : {}),
      },
    ];
  });
}

const fixed = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : "-";
const verdict = (value: number, met: boolean) => (Number.isFinite(value) ? (met ? "met" : "not met") : "");

/** Per capped phase: its p99 against pt-archiver's at the same pace, and the rate it held against the cap. */
export function cappedLines(ratios: readonly CappedRatios[]): string[] {
  return ratios.flatMap((r) => {
    const { label, peer } = CAPPED_PHASES.find((p) => p.name === r.name) ?? { label: r.name, peer: "" };
    const p99Met = r.p99 <= CAPPED_GOAL.p99;
    const rateMet = r.rateToCap <= CAPPED_GOAL.rateToCap && r.rateToCap >= 1 / CAPPED_GOAL.rateToCap;
    return [
      `${`${label} p99 ÷ ${peer} p99`.padEnd(48)} ${fixed(r.p99, 2).padStart(6)}×   goal ${`≤ ${CAPPED_GOAL.p99}`.padEnd(8)} ${verdict(r.p99, p99Met)}`,
      `${`${label} rate ÷ its cap`.padEnd(48)} ${fixed(r.rateToCap, 2).padStart(6)}×   goal ${`within ${CAPPED_GOAL.rateToCap}×`.padEnd(8)} ` +
        `${verdict(r.rateToCap, rateMet)} (${fixed(r.rowsPerSecond)} rows/s, cap ${fixed(r.capRowsPerSecond)} = ${peer}'s rate)`,
      ...(r.busiestToCap === undefined
        ? []
        : [
            `${`${label} busiest second ÷ its cap`.padEnd(48)} ${fixed(r.busiestToCap, 2).padStart(6)}×   goal ${`≤ ${CAPPED_GOAL.busiestToCap}`.padEnd(8)} ` +
              `${verdict(r.busiestToCap, r.busiestToCap <= CAPPED_GOAL.busiestToCap)} (rows deleted in its busiest second, the workload's about 40 included)`,
          ]),
    ];
  });
}
