import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * How long `pnpm archiver status` takes, wall-clock, as a person runs it: pnpm
 * starting and running the root script, Node loading the CLI's bundle, the
 * MySQL and Redis checks, and the status read. Beside it, the same command
 * without pnpm (`node packages/local/bin/archiver.mjs status`) and pnpm alone
 * (`pnpm --version`), so the figure splits into pnpm's part and the CLI's.
 *
 * One run first, not timed: it builds the bundle when a source is newer and
 * fills Node's compile cache. Then `runs` timed runs of each (5 by default,
 * `--runs N`); prints one JSON line with the median, min and max of each in
 * ms. Uses the environment as `pnpm archiver` would (`.env`, MYSQL_URL,
 * REDIS_URL), so MySQL and Redis must be up; status only reads.
 */
export interface CliStartupResult {
  readonly runs: number;
  readonly pnpmArchiverStatus: Timing;
  readonly nodeArchiverStatus: Timing;
  readonly pnpmVersion: Timing;
}

export interface Timing {
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
}

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const LAUNCHER = "packages/local/bin/archiver.mjs";

export function main(runs = 5): CliStartupResult {
  const pnpm = ["pnpm", "archiver", "status"];
  const node = [process.execPath, LAUNCHER, "status"];
  const version = ["pnpm", "--version"];
  time(pnpm);
  return {
    runs,
    pnpmArchiverStatus: timing(Array.from({ length: runs }, () => time(pnpm))),
    nodeArchiverStatus: timing(Array.from({ length: runs }, () => time(node))),
    pnpmVersion: timing(Array.from({ length: runs }, () => time(version))),
  };
}

/** Wall-clock ms of one run; throws with its stderr when it fails. */
function time([command, ...args]: readonly string[]): number {
  const started = performance.now();
  const result = spawnSync(command as string, args, { cwd: ROOT, encoding: "utf8", env: process.env });
  const ms = performance.now() - started;
  if (result.status !== 0) {
    throw new Error(`${[command, ...args].join(" ")} exited with ${result.status}: ${result.stderr.trim()}`);
  }
  return ms;
}

function timing(ms: readonly number[]): Timing {
  const sorted = [...ms].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[middle] : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
  return {
    medianMs: Math.round(median ?? 0),
    minMs: Math.round(sorted[0] ?? 0),
    maxMs: Math.round(sorted.at(-1) ?? 0),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const flag = process.argv.indexOf("--runs");
  const runs = flag === -1 ? 5 : Number(process.argv[flag + 1]);
  if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs takes a whole number of runs, at least 1");
  console.log(JSON.stringify(main(runs)));
}
