import { readFileSync } from "node:fs";
import type mysql from "mysql2/promise";
import type { PrivateMariaDb } from "./private-mariadb";

/** The bench's heartbeat (pt-heartbeat's legacy layout, in UTC): its own lag sampler reads it, and so does the archiver's replica throttle. */
export const HEARTBEAT = "live_meta.heartbeat";

/** The replica's lag as the heartbeat row shows it: the age, on the replica, of the last timestamp written. */
export interface LagSample {
  readonly atMs: number;
  /** Undefined when the replica could not be read. */
  readonly lagMs: number | undefined;
}

/**
 * The primary's state every ~200 ms: purge debt, redo, load, lock waits, and what ran long; with this host's
 * CPU steal and stall counters read at the same moment (see HostCounters).
 */
export interface StatusSample extends HostCounters {
  readonly atMs: number;
  /** How long the server took to answer SHOW GLOBAL STATUS: a stalled server answers late. */
  readonly queryMs: number;
  readonly historyLength: number;
  readonly checkpointAge: number;
  readonly threadsRunning: number;
  readonly rowLockWaits: number;
  readonly dirtyPages: number;
  /** Pages read from disk so far (Innodb_buffer_pool_reads, cumulative): misses of the buffer pool. */
  readonly diskReads: number;
  /** Rows deleted so far (Handler_delete, cumulative): the workload's 40 a second and the tool's. */
  readonly rowsDeleted: number;
  /** Statements running longer than 200 ms at that moment ("state: statement"). */
  readonly longRunning: readonly string[];
}

/**
 * What this machine's kernel counts, cumulative since boot, in ms; read from /proc with each status sample.
 * Each is undefined where its file is missing (not Linux, or a kernel without pressure accounting).
 * The bench runs in a VM with the servers on the same host: a worst second the tool did not cause shows
 * here, either as the VM's host pausing it or as a disk that stalled, so that every commit waited.
 */
export interface HostCounters {
  /**
   * CPU steal (/proc/stat): time this VM's CPUs were ready to run but its host ran something else,
   * summed over all CPUs (so it can grow faster than the clock).
   */
  readonly stealMs: number | undefined;
  /** CPU pressure (/proc/pressure/cpu, "some"): time at least one task waited for a CPU, this VM's own load included. */
  readonly cpuSomeStallMs: number | undefined;
  /** I/O full stall (/proc/pressure/io, "full"): time every task that had work was waiting on the disk at once. */
  readonly ioFullStallMs: number | undefined;
}

/** The replica every ~200 ms: what its SQL thread is doing and how full its own redo log is, to tell why it lags. */
export interface ReplicaSample {
  readonly atMs: number;
  /** The replica's checkpoint age as a share of its redo log. */
  readonly redoPercent: number;
  /** The SQL thread's state and, when it runs a statement, how long it has been at it. */
  readonly sqlThread: string;
}

export interface Samplers {
  readonly lag: readonly LagSample[];
  readonly replica: readonly ReplicaSample[];
  readonly status: readonly StatusSample[];
  /** innodb_log_file_size: what the checkpoint age is a share of. */
  readonly redoLogBytes: number;
  stop(): Promise<void>;
}

/** The heartbeat's table, made before replication is awaited so the replica has it from the start. */
export async function createHeartbeatTable(primary: mysql.Connection): Promise<void> {
  await primary.query("CREATE DATABASE IF NOT EXISTS live_meta");
  await primary.query(
    `CREATE TABLE IF NOT EXISTS ${HEARTBEAT} (id TINYINT PRIMARY KEY, ts DATETIME(6) NOT NULL) ENGINE=InnoDB`,
  );
  await primary.query(`REPLACE INTO ${HEARTBEAT} VALUES (1, UTC_TIMESTAMP(6))`);
}

/**
 * Starts three loops on connections of their own: the heartbeat written on
 * the primary every 100 ms (as pt-heartbeat does: sub-second, unlike
 * Seconds_Behind_Master), read on the replica every 100 ms, and the
 * primary's status every 200 ms. Both servers share this machine's clock, so
 * the replica's UTC_TIMESTAMP(6) minus the replicated timestamp is its lag (plus up to
 * 100 ms of heartbeat interval).
 */
export async function startSamplers(
  primary: PrivateMariaDb,
  replica: PrivateMariaDb,
  clockMs: () => number,
): Promise<Samplers> {
  const writer = await primary.connect();
  const reader = await replica.connect();
  const status = await primary.connect();
  const replicaStatus = await replica.connect();
  const [[logSize]] = (await status.query("SELECT @@innodb_log_file_size AS bytes")) as unknown as [
    [{ bytes: number | string }],
  ];
  const lag: LagSample[] = [];
  const samples: StatusSample[] = [];
  const replicaSamples: ReplicaSample[] = [];
  const loops = [
    every(100, async () => {
      await writer.query(`UPDATE ${HEARTBEAT} SET ts = UTC_TIMESTAMP(6) WHERE id = 1`);
    }),
    every(100, async () => {
      try {
        const [[row]] = (await reader.query(
          `SELECT TIMESTAMPDIFF(MICROSECOND, ts, UTC_TIMESTAMP(6)) / 1000 AS lag_ms FROM ${HEARTBEAT} WHERE id = 1`,
        )) as unknown as [[{ lag_ms: string | number } | undefined]];
        lag.push({ atMs: clockMs(), lagMs: row ? Number(row.lag_ms) : undefined });
      } catch {
        lag.push({ atMs: clockMs(), lagMs: undefined });
      }
    }),
    every(200, async () => samples.push(await sampleStatus(status, clockMs))),
    every(200, async () =>
      replicaSamples.push(await sampleReplica(replicaStatus, clockMs, Number(logSize.bytes))),
    ),
  ];
  return {
    lag,
    replica: replicaSamples,
    status: samples,
    redoLogBytes: Number(logSize.bytes),
    async stop() {
      await Promise.all(loops.map((stop) => stop()));
      await Promise.allSettled([writer.end(), reader.end(), status.end(), replicaStatus.end()]);
    },
  };
}

async function sampleStatus(connection: mysql.Connection, clockMs: () => number): Promise<StatusSample> {
  const started = clockMs();
  const host = readHostCounters();
  const [rows] = (await connection.query(
    `SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_history_list_length', 'Innodb_checkpoint_age',
       'Threads_running', 'Innodb_row_lock_current_waits', 'Innodb_buffer_pool_pages_dirty',
       'Innodb_buffer_pool_reads', 'Handler_delete')`,
  )) as unknown as [{ Variable_name: string; Value: string }[]];
  const queryMs = clockMs() - started;
  const value = (name: string) => Number(rows.find((row) => row.Variable_name === name)?.Value ?? Number.NaN);
  const [long] = (await connection.query(
    `SELECT COALESCE(STATE, '') AS state, TIME_MS AS ms, LEFT(COALESCE(INFO, COMMAND), 100) AS info
     FROM information_schema.PROCESSLIST
     WHERE COMMAND NOT IN ('Sleep', 'Daemon', 'Binlog Dump', 'Slave_IO', 'Slave_SQL')
       AND TIME_MS > 200 AND ID <> CONNECTION_ID()`,
  )) as unknown as [{ state: string; ms: number; info: string }[]];
  return {
    atMs: started,
    queryMs: Math.round(queryMs),
    historyLength: value("Innodb_history_list_length"),
    checkpointAge: value("Innodb_checkpoint_age"),
    threadsRunning: value("Threads_running"),
    rowLockWaits: value("Innodb_row_lock_current_waits"),
    dirtyPages: value("Innodb_buffer_pool_pages_dirty"),
    diskReads: value("Innodb_buffer_pool_reads"),
    rowsDeleted: value("Handler_delete"),
    ...host,
    longRunning: long.map(
      (row) => `${Math.round(Number(row.ms))} ms ${row.state}: ${row.info.replace(/\s+/g, " ")}`,
    ),
  };
}

/** Reads the host's counters now: three small files, read synchronously so they match the sample's time. */
function readHostCounters(): HostCounters {
  // The "cpu " line sums all CPUs: user nice system idle iowait irq softirq steal ..., in USER_HZ ticks.
  // USER_HZ is 100 on every mainstream Linux build (getconf CLK_TCK), so a tick is taken as 10 ms.
  const steal = procLine("/proc/stat", "cpu ")?.trim().split(/\s+/)[8];
  return {
    stealMs: steal === undefined ? undefined : Number(steal) * 10,
    cpuSomeStallMs: pressureTotalMs("/proc/pressure/cpu", "some"),
    ioFullStallMs: pressureTotalMs("/proc/pressure/io", "full"),
  };
}

/** A pressure file's `total=` (µs) on its "some" or "full" line, in ms. */
function pressureTotalMs(path: string, kind: "some" | "full"): number | undefined {
  const total = procLine(path, `${kind} `)?.match(/total=(\d+)/)?.[1];
  return total === undefined ? undefined : Number(total) / 1000;
}

/** The first line of a /proc file that starts with `prefix`; undefined when the file cannot be read. */
function procLine(path: string, prefix: string): string | undefined {
  try {
    return readFileSync(path, "utf8")
      .split("\n")
      .find((line) => line.startsWith(prefix));
  } catch {
    return undefined;
  }
}

async function sampleReplica(
  connection: mysql.Connection,
  clockMs: () => number,
  redoLogBytes: number,
): Promise<ReplicaSample> {
  const atMs = clockMs();
  const [[age]] = (await connection.query("SHOW GLOBAL STATUS LIKE 'Innodb_checkpoint_age'")) as unknown as [
    [{ Value: string }],
  ];
  const [threads] = (await connection.query(
    `SELECT COALESCE(STATE, '') AS state, TIME_MS AS ms, LEFT(COALESCE(INFO, ''), 60) AS info
     FROM information_schema.PROCESSLIST WHERE COMMAND = 'Slave_SQL'`,
  )) as unknown as [{ state: string; ms: number; info: string }[]];
  const sqlThread = threads
    .map(
      (t) => `${t.state}${t.info ? ` (${Math.round(Number(t.ms))} ms: ${t.info.replace(/\s+/g, " ")})` : ""}`,
    )
    .join("; ");
  return { atMs, redoPercent: (100 * Number(age.Value)) / redoLogBytes, sqlThread };
}

/**
 * Runs `tick` every `intervalMs` (never two at once: a tick that runs late
 * delays the next) until the returned stop is called. A failed tick is
 * skipped, not fatal: a sampler must not end the run it measures.
 */
function every(intervalMs: number, tick: () => Promise<unknown>): () => Promise<void> {
  let stopped = false;
  const loop = (async () => {
    let next = performance.now();
    while (!stopped) {
      await tick().catch(() => {});
      next += intervalMs;
      const wait = next - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      else next = performance.now();
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}
