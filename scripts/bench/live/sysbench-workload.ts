import { createInterface } from "node:readline";
import { runChecked, startProcess, stopProcess } from "./child-processes";
import { BENCH_USER, type PrivateMariaDb } from "./private-mariadb";

/** The application stand-in: the fixed-rate sysbench workload on the primary. */
export const WORKLOAD = { tables: 4, tableSize: 25_000, threads: 4, rate: 40 } as const;
const DATABASE = "sbtest";

/** One of sysbench's per-second reports, stamped with the bench's clock when it arrived. */
export interface WorkloadSecond {
  /** Bench clock (ms) at the end of the second the report covers. */
  readonly atMs: number;
  readonly tps: number;
  /** The 99th percentile latency of that second, ms (with --rate it includes time queued behind a stall). */
  readonly p99Ms: number;
  readonly errorsPerSecond: number;
  /** Transactions waiting for a free thread at the end of the second (how far the workload fell behind). */
  queueLength: number;
}

export interface RunningWorkload {
  readonly seconds: readonly WorkloadSecond[];
  stop(): Promise<void>;
}

function connectionArgs(server: PrivateMariaDb): string[] {
  return [
    "oltp_read_write",
    "--db-driver=mysql",
    "--mysql-host=127.0.0.1",
    `--mysql-port=${server.port}`,
    `--mysql-user=${BENCH_USER}`,
    `--mysql-db=${DATABASE}`,
    `--tables=${WORKLOAD.tables}`,
    `--table-size=${WORKLOAD.tableSize}`,
  ];
}

export async function prepareWorkload(server: PrivateMariaDb): Promise<void> {
  const connection = await server.connect();
  try {
    await connection.query(`CREATE DATABASE IF NOT EXISTS ${DATABASE}`);
  } finally {
    await connection.end();
  }
  await runChecked("sysbench prepare", "sysbench", [...connectionArgs(server), "prepare"]);
}

/**
 * Runs the workload until stop(): 4 threads at a fixed 40 transactions/s,
 * reporting every second. A fixed rate, not as fast as it can: a tool that
 * slows the server shows up as latency, the way an application feels it,
 * instead of as fewer transactions. stdbuf makes sysbench write each report
 * as it happens, so it is stamped with the second it describes. With `cpu`
 * the workload's client runs on that CPU (the primary's, when pinned): an
 * application never shares a host with the archiver, so the latency it reports
 * must not include the tools' own CPU on the bench's other core.
 */
export function startWorkload(server: PrivateMariaDb, clockMs: () => number, cpu?: number): RunningWorkload {
  const pinned = cpu === undefined ? [] : ["taskset", "-c", String(cpu)];
  const [program = "stdbuf", ...prefix] = [...pinned, "stdbuf"];
  const child = startProcess("sysbench", program, [
    ...prefix,
    "-oL",
    "sysbench",
    ...connectionArgs(server),
    `--threads=${WORKLOAD.threads}`,
    `--rate=${WORKLOAD.rate}`,
    "--report-interval=1",
    "--percentile=99",
    "--time=0",
    "run",
  ]);
  const seconds: WorkloadSecond[] = [];
  let stopping = false;
  let stderr = "";
  child.stderr?.on("data", (data: Buffer) => {
    stderr = (stderr + data.toString()).slice(-2000);
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  lines.on("line", (line) => {
    const report = /^\[ *\d+s \] thds: \d+ tps: ([\d.]+) .*lat \(ms,99%\): ([\d.]+) err\/s: ([\d.]+)/.exec(
      line,
    );
    if (report) {
      seconds.push({
        atMs: clockMs(),
        tps: Number(report[1]),
        p99Ms: Number(report[2]),
        errorsPerSecond: Number(report[3]),
        queueLength: 0,
      });
      return;
    }
    const queue = /^\[ *\d+s \] queue length: (\d+)/.exec(line);
    const last = seconds.at(-1);
    if (queue && last) last.queueLength = Number(queue[1]);
  });
  child.once("exit", (code, signal) => {
    // The workload must run the whole time; without it the figures mean nothing.
    if (!stopping) console.error(`sysbench stopped on its own (${code ?? signal}):\n${stderr}`);
  });
  return {
    seconds,
    async stop() {
      stopping = true;
      await stopProcess(child, 5_000);
    },
  };
}
