/**
 * The archiver as a user runs it, beside its peer, on the same rows:
 * 1,017,290 rows over the 365 days of 2024 (about 2,787 a day) in
 * `bench_e2e`, and the same rows in `bench_e2e_peer`, both rebuilt on every
 * run. Four timings, each a whole process:
 * - copy: the built CLI, `archiver publish --wait` with a migration message
 *   (planning, the local queue, one task a day, DuckDB), from start to exit;
 * - pt-archiver's copy of the peer table (`--no-delete --file`, 1,000 rows a
 *   statement), and the `mariadb` client reading the same rows (the raw read);
 * - cleanup: the built CLI, `archiver publish --wait` with a cleanup message
 *   (`dry_run: false`): every day verified and deleted;
 * - pt-archiver's purge of the peer table (`--purge --bulk-delete`, 1,000 rows
 *   a statement, a commit each).
 * Prints one JSON line: the rates, and the archiver's over pt-archiver's and
 * over the raw read. `--archiver PATH` runs another build of the CLI (say, an
 * older commit's `packages/local/bin/archiver.mjs`), to compare two versions
 * in one sitting.
 *
 *   pnpm bench end-to-end      (pt-archiver comes with Debian's percona-toolkit)
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { createMysqlPool } from "@table-archiver/core/mysql";
import { createRedisClient } from "@table-archiver/core/redis";
import { BENCH_DATABASE, BENCH_MYSQL_URL, BENCH_SERVER, ensureBenchTable } from "./bench-table";
import { countRows, forgetRun, round, waitForFlushedRedo } from "./cleanup-bench-support";
import { runChecked } from "./live/child-processes";
import { ptArchiverCopy, ptArchiverPurge, ptServerAt, type ToolRun } from "./live/pt-archiver-runs";
import { mysqlClientRate } from "./mysql-client-rate";
import { childrenCpuSeconds, localServerPid, processCpuSeconds } from "./process-cpu";

const TABLE = "bench_e2e";
const PEER_TABLE = "bench_e2e_peer";
const ROWS = 1_017_290;
const DAYS = 365;
const FIRST_DAY = "2024-01-01";
const WHERE = "created_at < '2025-01-01'";
const PREFIX = "bench-e2e";
type Pool = ReturnType<typeof createMysqlPool>;
const GOALS = { copyOverPeer: 4, copyOverRawRead: 0.3, cleanupOverPeer: 1.5 };

const option = (name: string) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};
const archiver = resolve(option("--archiver") ?? "packages/local/bin/archiver.mjs");

async function main(): Promise<Record<string, unknown>> {
  if (!existsSync(archiver)) {
    throw new Error(`${archiver} is missing: \`pnpm install\` builds the CLI (its prepare step)`);
  }
  const hasPt = spawnSync("pt-archiver", ["--version"], { stdio: "ignore" }).status === 0;
  const started = performance.now();
  // The database first (ensureBenchTable creates it), then one pool for the peer and every count.
  await ensureBenchTable({ table: TABLE, rows: ROWS, firstDay: FIRST_DAY, days: DAYS });
  const pool = createMysqlPool({ url: BENCH_MYSQL_URL, password: undefined }, { connectionLimit: 1 });
  const redis = createRedisClient({
    url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
    auth: undefined,
  });
  const warehouse = resolve(".bench/e2e.duckdb");
  await mkdir(".bench", { recursive: true });
  await Promise.all([rm(warehouse, { force: true }), rm(`${warehouse}.wal`, { force: true })]);
  const env = {
    ...process.env,
    MYSQL_URL: BENCH_MYSQL_URL,
    DUCKDB_PATH: warehouse,
    LOCAL_QUEUE_PREFIX: PREFIX,
    LOG_LEVEL: "error",
  };
  try {
    await forget(redis);
    await copyPeerTable(pool);
    const setupSeconds = (performance.now() - started) / 1000;
    const rawRead = mysqlClientRate(TABLE, ROWS);
    // pt-archiver's file goes where the archiver's DuckDB file goes: the same disk for both.
    const ptFile = resolve(".bench/e2e-pt-archiver.txt");
    await rm(ptFile, { force: true });
    const peerCopy = hasPt
      ? await withCpu(() => ptArchiverCopy(ptServerAt(BENCH_SERVER), { ...peerTarget(), file: ptFile }))
      : undefined;
    await rm(ptFile, { force: true });
    const copy = await withCpu(() =>
      cli(pool, env, {
        years_to_migrate: 1,
        months_to_migrate: 0,
        source_tables: [TABLE],
        destination_tables: [`${TABLE}_archive`],
        filter_columns: ["created_at"],
        tasks_enqueued_limit: DAYS,
      }),
    );
    await waitForFlushedRedo(pool);
    const cleanup = await withCpu(() =>
      cli(pool, env, { clean_table: TABLE, filter_column: "created_at", dry_run: false }),
    );
    await waitForFlushedRedo(pool);
    const peerPurge = hasPt
      ? await withCpu(() => ptArchiverPurge(ptServerAt(BENCH_SERVER), peerTarget()))
      : undefined;
    const left = await countRows(pool, TABLE);
    if (left !== 0) throw new Error(`the cleanup left ${left} rows of ${TABLE}`);
    const rate = (run: ToolRun | undefined) => (run ? Math.round(run.rows / run.seconds) : undefined);
    const ratio = (a: number | undefined, b: number | undefined) => (a && b ? round2(a / b) : null);
    const readRate = "rowsPerSecond" in rawRead ? rawRead.rowsPerSecond : undefined;
    return {
      scenario: `${ROWS.toLocaleString("en")} rows over ${DAYS} days, the built CLI end to end beside pt-archiver`,
      archiver,
      copy: {
        ...figures(copy),
        overPtArchiver: ratio(rate(copy), rate(peerCopy)),
        overRawRead: ratio(rate(copy), readRate),
      },
      cleanup: { ...figures(cleanup), overPtArchiver: ratio(rate(cleanup), rate(peerPurge)) },
      ptArchiver: hasPt
        ? { copy: figures(peerCopy), purge: figures(peerPurge) }
        : "not run: pt-archiver is not on PATH; install it with apt-get update && apt-get install -y percona-toolkit",
      rawRead,
      goals: GOALS,
      setupSeconds: round(setupSeconds),
    };
  } finally {
    await forget(redis).catch(() => {});
    redis.disconnect();
    await pool.end();
  }
}

/**
 * Drops what a run leaves in Redis, before it and after it: the table's migrated days and copy records, the
 * queue under PREFIX, and the cleanup's state of each day (`archiver:cleanup:<table>:<day>` and the like).
 */
async function forget(redis: ReturnType<typeof createRedisClient>): Promise<void> {
  await forgetRun(redis, TABLE, PREFIX);
  const keys: string[] = [];
  for await (const batch of redis.scanStream({ match: `archiver:*:${TABLE}*`, count: 1000 }))
    keys.push(...batch);
  if (keys.length > 0) await redis.del(...keys);
}

/** The peer table, a copy of the archiver's rows (made anew: the last run emptied it). */
async function copyPeerTable(pool: Pool): Promise<void> {
  await pool.query({ sql: `DROP TABLE IF EXISTS ${PEER_TABLE}` });
  await pool.query({ sql: `CREATE TABLE ${PEER_TABLE} LIKE ${TABLE}` });
  await pool.query({ sql: `INSERT INTO ${PEER_TABLE} SELECT * FROM ${TABLE} ORDER BY id` });
  await waitForFlushedRedo(pool);
}

/** What the CLI did: the rows it moved, and how long it took to plan (up to its "accepted" line) and in all. */
interface CliRun extends ToolRun {
  readonly acceptedSeconds: number;
}

/** `archiver publish --wait --message MESSAGE`, timed as a whole process; a cleanup's rows come from MySQL's counts. */
async function cli(pool: Pool, env: NodeJS.ProcessEnv, message: Record<string, unknown>): Promise<CliRun> {
  const before = await countRows(pool, TABLE);
  const args = [archiver, "publish", "--wait", "--message", JSON.stringify(message)];
  let acceptedSeconds = Number.NaN;
  const run = await runChecked("archiver", process.execPath, args, { env }, (stdout, seconds) => {
    if (Number.isNaN(acceptedSeconds) && /^accepted/m.test(stdout)) acceptedSeconds = seconds;
  });
  const copied = /\(([\d,]+) rows\)/.exec(run.stdout)?.[1];
  const rows =
    "clean_table" in message
      ? before - (await countRows(pool, TABLE))
      : Number(copied?.replaceAll(",", "") ?? Number.NaN);
  if (!(rows > 0)) throw new Error(`archiver moved no rows:\n${run.stdout.slice(-2000)}`);
  return { rows, seconds: run.seconds, acceptedSeconds, detail: `archiver ${args.slice(1).join(" ")}` };
}

/** CPU seconds a phase used: the tool's process (its own and its children's), and the MySQL and Redis servers. */
interface PhaseCpu {
  readonly tool: number;
  readonly mysql: number | undefined;
  readonly redis: number | undefined;
}

/**
 * Runs one phase and counts its CPU. The tool is a child of this process, so
 * its CPU is in this process's children's time once it has ended; the
 * servers, when they run on this machine, are read from /proc.
 */
async function withCpu<T extends ToolRun>(phase: () => Promise<T>): Promise<T & { cpu: PhaseCpu }> {
  const mysqlPid = localServerPid("mariadbd", "mysqld");
  const redisPid = localServerPid("redis-server");
  const before = {
    tool: childrenCpuSeconds(),
    mysql: processCpuSeconds(mysqlPid),
    redis: processCpuSeconds(redisPid),
  };
  const run = await phase();
  const since = (now: number | undefined, then: number | undefined) =>
    now === undefined || then === undefined ? undefined : round(now - then);
  const cpu = {
    tool: round(childrenCpuSeconds() - before.tool),
    mysql: since(processCpuSeconds(mysqlPid), before.mysql),
    redis: since(processCpuSeconds(redisPid), before.redis),
  };
  return { ...run, cpu };
}

/**
 * A phase's figures; with its CPU, the CPU it took a row (the tool's and the servers') and the rate that
 * would allow if every core of this machine did nothing else (`ceilingRowsPerSecond`).
 */
function figures(run: (ToolRun & { cpu?: PhaseCpu; acceptedSeconds?: number }) | undefined) {
  if (!run) return undefined;
  const planned =
    run.acceptedSeconds === undefined ? {} : { untilAcceptedSeconds: round(run.acceptedSeconds) };
  const base = {
    rows: run.rows,
    seconds: round(run.seconds),
    rowsPerSecond: Math.round(run.rows / run.seconds),
  };
  if (!run.cpu) return { ...base, ...planned };
  const total = run.cpu.tool + (run.cpu.mysql ?? 0) + (run.cpu.redis ?? 0);
  return {
    ...base,
    ...planned,
    cpuSeconds: run.cpu,
    cpuMicrosecondsPerRow: round((total * 1e6) / run.rows),
    ceilingRowsPerSecond: Math.round((availableParallelism() * run.rows) / total),
  };
}

function peerTarget() {
  return { database: BENCH_DATABASE, table: PEER_TABLE, where: WHERE };
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

main().then(
  (result) => console.log(JSON.stringify(result)),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
