import { accessSync, constants } from "node:fs";
import { availableParallelism } from "node:os";
import { delimiter, join } from "node:path";
import { parseArgs } from "node:util";

export interface LiveOptions {
  readonly days: number;
  readonly rowsPerDay: number;
  /**
   * The primary and the workload's client on CPU 0, the tools (this process, the archiver it runs,
   * pt-archiver) and the replica on CPU 1.
   */
  readonly pin: boolean;
  readonly outDir: string;
  readonly baselineSeconds: number;
  /** Shortest quiet gap after each phase; it lasts longer while the replica, purge or redo have not settled. */
  readonly gapSeconds: number;
  readonly maxGapSeconds: number;
  /** Leave the private servers' data directories behind (their error logs, for a post-mortem). */
  readonly keep: boolean;
  /** Run the baseline and the archiver's partition cleanup alone, none of the other phases. */
  readonly partitionPhase: boolean;
}

const USAGE = `pnpm bench live [--days 100] [--rows-per-day 8000] [--pin] [--out DIR]
                [--baseline-seconds 20] [--gap-seconds 15] [--max-gap-seconds 120] [--keep]
                [--partition-phase]`;

export function parseLiveOptions(argv: readonly string[]): LiveOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      days: { type: "string", default: "100" },
      "rows-per-day": { type: "string", default: "8000" },
      pin: { type: "boolean", default: false },
      out: { type: "string", default: ".bench/live" },
      "baseline-seconds": { type: "string", default: "20" },
      "gap-seconds": { type: "string", default: "15" },
      "max-gap-seconds": { type: "string", default: "120" },
      keep: { type: "boolean", default: false },
      "partition-phase": { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const positive = (name: string, text: string) => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) {
      console.error(`--${name} must be a whole number of at least 1, not "${text}"\n${USAGE}`);
      process.exit(2);
    }
    return n;
  };
  return {
    days: positive("days", values.days),
    rowsPerDay: positive("rows-per-day", values["rows-per-day"]),
    pin: values.pin,
    outDir: values.out,
    baselineSeconds: positive("baseline-seconds", values["baseline-seconds"]),
    gapSeconds: positive("gap-seconds", values["gap-seconds"]),
    maxGapSeconds: positive("max-gap-seconds", values["max-gap-seconds"]),
    keep: values.keep,
    partitionPhase: values["partition-phase"],
  };
}

/**
 * Exits with what to install when a program the bench runs is missing:
 * sysbench and pt-archiver are not dependencies of the project, and a bench
 * that half-ran would print nothing worth reading.
 */
export function requirePrograms(options: LiveOptions): void {
  const missing = (names: string[]) => names.filter((name) => !onPath(name));
  const tools = missing(["sysbench", "pt-archiver"]);
  if (tools.length > 0) {
    console.error(
      `pnpm bench live needs ${tools.join(" and ")} (not found on the PATH). On Debian or Ubuntu:\n\n` +
        "  apt-get update && apt-get install -y sysbench percona-toolkit\n",
    );
    process.exit(2);
  }
  const server = missing(["mariadbd", "mariadb-install-db"]);
  if (server.length > 0) {
    console.error(
      `pnpm bench live starts private MariaDB servers and needs ${server.join(" and ")}:\n\n` +
        "  apt-get update && apt-get install -y mariadb-server\n",
    );
    process.exit(2);
  }
  const basics = missing(["stdbuf", ...(options.pin ? ["taskset"] : [])]);
  if (basics.length > 0) {
    console.error(`pnpm bench live needs ${basics.join(" and ")} (coreutils, util-linux)`);
    process.exit(2);
  }
  if (options.pin && availableParallelism() < 2) {
    console.error("--pin needs at least two CPUs: the primary on one, everything else on another");
    process.exit(2);
  }
}

export function onPath(program: string): boolean {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    try {
      accessSync(join(dir, program), constants.X_OK);
      return true;
    } catch {}
  }
  return false;
}
