import type { Phase } from "./phase-figures";
import type { WorkloadSecond } from "./sysbench-workload";

const WIDTH = 960;
const HEIGHT = 400;
const MARGIN = { left: 64, right: 24, top: 48, bottom: 48 };
const FILL: Record<Phase["tool"], string> = {
  none: "#9e9e9e",
  archiver: "#4e79a7",
  "pt-archiver": "#f28e2b",
};

/**
 * The workload's per-second p99 over the whole run, phases shaded (blue the
 * archiver, orange pt-archiver, grey the baseline), with the baseline's p99
 * and the goal's 10× line dashed. The latency axis is logarithmic so that a
 * multi-second stall and a 5 ms baseline both stay readable. Plain SVG text:
 * no charting dependency, and small enough to commit.
 */
export function p99ChartSvg(input: {
  workload: readonly WorkloadSecond[];
  phases: readonly Phase[];
  baselineP99Ms: number;
  title: string;
}): string {
  const { workload, phases } = input;
  const t0 = (workload[0]?.atMs ?? 0) - 1000;
  const t1 = Math.max(workload.at(-1)?.atMs ?? t0 + 1000, ...phases.map((p) => p.endMs));
  const maxMs = Math.max(10, input.baselineP99Ms * 10, ...workload.map((s) => s.p99Ms));
  const minMs = Math.max(0.1, Math.min(1, ...workload.map((s) => s.p99Ms).filter((v) => v > 0)));
  const logMin = Math.floor(Math.log10(minMs));
  const logMax = Math.ceil(Math.log10(maxMs));
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (ms: number) => MARGIN.left + ((ms - t0) / (t1 - t0)) * plotW;
  const y = (latency: number) =>
    MARGIN.top + plotH - ((Math.log10(Math.max(latency, minMs)) - logMin) / (logMax - logMin)) * plotH;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="11">`,
    // A title element names the chart for screen readers (and is what biome's a11y rule asks of an SVG).
    `<title>${escapeXml(input.title)}</title>`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="20" text-anchor="middle" font-size="14">${escapeXml(input.title)}</text>`,
  ];
  for (const phase of phases) {
    const left = x(phase.startMs);
    const width = Math.max(1, x(phase.endMs) - left);
    out.push(
      `<rect x="${r(left)}" y="${MARGIN.top}" width="${r(width)}" height="${plotH}" fill="${FILL[phase.tool]}" fill-opacity="0.22"/>`,
      // Labels run down the band: phases are often too narrow for a label across.
      `<text transform="translate(${r(left + width / 2 + 4)},${MARGIN.top + 6}) rotate(90)" fill="#333">${escapeXml(phase.name)}</text>`,
    );
  }
  for (let power = logMin; power <= logMax; power++) {
    const value = 10 ** power;
    out.push(
      `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${r(y(value))}" y2="${r(y(value))}" stroke="#ddd"/>`,
      `<text x="${MARGIN.left - 6}" y="${r(y(value) + 4)}" text-anchor="end">${value >= 1000 ? `${value / 1000} s` : `${value} ms`}</text>`,
    );
  }
  const span = (t1 - t0) / 1000;
  const step = [10, 30, 60, 120, 300, 600].find((s) => span / s <= 12) ?? 1200;
  for (let s = 0; s <= span; s += step) {
    out.push(
      `<text x="${r(x(t0 + s * 1000))}" y="${HEIGHT - MARGIN.bottom + 16}" text-anchor="middle">${s} s</text>`,
    );
  }
  for (const [value, label, colour] of [
    [input.baselineP99Ms, "baseline p99", "#555"],
    [input.baselineP99Ms * 10, "10× baseline", "#c0392b"],
  ] as const) {
    out.push(
      `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${r(y(value))}" y2="${r(y(value))}" stroke="${colour}" stroke-dasharray="5,4"/>`,
      `<text x="${WIDTH - MARGIN.right - 4}" y="${r(y(value) - 4)}" text-anchor="end" fill="${colour}">${label}</text>`,
    );
  }
  const points = workload.map((s) => `${r(x(s.atMs - 500))},${r(y(s.p99Ms))}`).join(" ");
  out.push(
    `<polyline points="${points}" fill="none" stroke="#222" stroke-width="1.2"/>`,
    `<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`,
    `<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 10}" text-anchor="middle">time since the workload started (sysbench oltp_read_write, 40 tps) — blue: archiver, orange: pt-archiver</text>`,
    `<text transform="translate(16,${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle">workload p99 per second (log scale)</text>`,
    "</svg>",
  );
  return `${out.join("\n")}\n`;
}

function r(n: number): string {
  return n.toFixed(1);
}

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
