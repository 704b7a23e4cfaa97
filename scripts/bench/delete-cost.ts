/**
 * What deleting a row costs the server, by the way it is deleted: the
 * primary's CPU per row, while the statements run and afterwards while
 * InnoDB's purge removes what they delete-marked. On a private MariaDB
 * primary (binary log in ROW format, MariaDB's defaults otherwise), the same
 * rows (the live bench's table, `--days` × 8,000) are deleted seven ways,
 * each from its own copy of the table:
 * - `DELETE` alone, a day per statement by key range: the floor under any
 *   tool that deletes rows;
 * - the archiver's chunks of 1,000 rows its copy recorded (the real MySQL
 *   DayDeleter: on MariaDB each delete one `DELETE … RETURNING` whose rows
 *   are compared with the chunks' recorded figures; the last also counts the
 *   day), joined into deletes of about 30 ms: the cleanup's default, with no
 *   read of the day before; the same on MySQL's way (each a locked, hashed
 *   read, then the delete); and one chunk a delete;
 * - the archiver's one chunk for a day its copy record vouches for as a whole;
 * - the archiver's planned chunks of 1,000 rows (the plan's hashed read of
 *   the day, then each chunk locked, hashed and deleted): a day copied before
 *   copies recorded their chunks;
 * - pt-archiver `--purge --bulk-delete --limit 1000 --commit-each`.
 * Under a live workload whose server is busy, a tool's harm grows with the
 * server time it takes a second: rows a second × CPU a row. So this is what
 * bounds how fast a cleanup can go for a given harm.
 *
 *   pnpm bench delete-cost [--days 40] [--rounds 2]
 */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { addDays, createChunkPacer, joinChunks, MAX_DELETE_ROWS } from "@table-archiver/core";
import { loadConfig } from "@table-archiver/core/config";
import {
  createMysqlDayDeleter,
  createMysqlPool,
  createMysqlSourceDatabase,
} from "@table-archiver/core/mysql";
import type { ChunkTarget, DayChunk, DayDeleter } from "@table-archiver/core/ports";
import {
  ARCHIVER_TABLE,
  endOfData,
  FILTER_COLUMN,
  FIRST_DAY,
  LIVE_DATABASE,
  loadBenchTables,
  PARTITIONED_TABLE,
  PT_TABLE,
} from "./live/bench-tables";
import { onInterrupt, stopAllProcesses } from "./live/child-processes";
import { onPath } from "./live/live-options";
import { type PrivateMariaDb, startPrivateMariaDb } from "./live/private-mariadb";
import { ptArchiverPurge } from "./live/pt-archiver-runs";
import { type Cost, measured } from "./server-cpu-per-row";

const ROWS_PER_DAY = 8_000;
/** The cleanup's default: planned chunks joined into deletes of about this many milliseconds. */
const DEFAULT_TARGET_MS = loadConfig({}).cleanup.chunkTargetMs;

/** Each delete transaction of each archiver way and round (`round way`), in milliseconds. */
const deleteMs = new Map<string, number[]>();

const { values } = parseArgs({
  options: { days: { type: "string", default: "40" }, rounds: { type: "string", default: "2" } },
});
const days = Number(values.days);
const rounds = Number(values.rounds);
if (!Number.isInteger(days) || days < 1 || days > 365 || !Number.isInteger(rounds) || rounds < 1) {
  console.error(`--days must be a whole number from 1 to 365, and --rounds at least 1`);
  process.exit(2);
}
const missing = ["pt-archiver", "mariadbd", "mariadb-install-db"].filter((name) => !onPath(name));
if (missing.length > 0) {
  console.error(
    `pnpm bench delete-cost needs ${missing.join(", ")}. On Debian or Ubuntu:\n\n` +
      "  apt-get update && apt-get install -y percona-toolkit mariadb-server\n",
  );
  process.exit(2);
}

let server: PrivateMariaDb | undefined;
let baseDir: string | undefined;
const shutDown = async () => {
  await server?.stop().catch(() => {});
  await stopAllProcesses();
  if (baseDir) await rm(baseDir, { recursive: true, force: true });
};
onInterrupt(shutDown);
try {
  baseDir = await mkdtemp(join(tmpdir(), "bench-delete-cost-"));
  await chmod(baseDir, 0o755);
  server = await startPrivateMariaDb({ name: "primary", baseDir, serverId: 1, primary: true });
  printCosts(await measure(server));
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await shutDown();
}

async function measure(primary: PrivateMariaDb): Promise<Cost[]> {
  const admin = await primary.connect();
  const size = { days, rowsPerDay: ROWS_PER_DAY };
  await loadBenchTables(admin, size);
  await admin.query(`DROP TABLE ${PT_TABLE}, ${PARTITIONED_TABLE}`);
  const pool = createMysqlPool(
    { url: `${primary.url}/${LIVE_DATABASE}`, password: undefined },
    { connectionLimit: 2 },
  );
  const deleter = createMysqlDayDeleter(pool);
  const lockingDeleter = createMysqlDayDeleter(pool, { returning: false });
  const source = createMysqlSourceDatabase(pool);
  const dayList = Array.from({ length: days }, (_, i) => addDays(FIRST_DAY, i));
  // Each way deletes from a fresh copy of the rows, read into the buffer pool first, after whatever it
  // needs to know beforehand (a copy record's figures, a day's key range) is read: only the deletes are counted.
  const ways: { way: string; prepare(table: string): Promise<() => Promise<number>> }[] = [
    {
      way: "DELETE alone, a day a statement",
      async prepare(table) {
        const bounds: { day: string; lo?: string; hi?: string }[] = [];
        for (const day of dayList) {
          const [[range]] = (await admin.query(
            `SELECT MIN(id) AS lo, MAX(id) AS hi FROM ${table} WHERE ${dayWhere(day)}`,
          )) as unknown as [{ lo: string; hi: string }[]];
          bounds.push({ day, lo: range?.lo, hi: range?.hi });
        }
        return async () => {
          let deleted = 0;
          for (const { day, lo, hi } of bounds) {
            const [result] = await admin.query(
              `DELETE FROM ${table} WHERE ${dayWhere(day)} AND id BETWEEN ? AND ?`,
              [lo, hi],
            );
            deleted += (result as { affectedRows: number }).affectedRows;
          }
          return deleted;
        };
      },
    },
    // The chunks the copy recorded of each day, the one chunk its record makes of it, or the chunks the plan cuts it into.
    archiverWay(
      `archiver, the copy's chunks joined into deletes of about ${DEFAULT_TARGET_MS} ms (the default)`,
      async (_target, day) => day.copied,
      DEFAULT_TARGET_MS,
    ),
    archiverWay(
      `archiver on MySQL (a locked read, then the delete), joined toward ${DEFAULT_TARGET_MS} ms`,
      async (_target, day) => day.copied,
      DEFAULT_TARGET_MS,
      lockingDeleter,
    ),
    archiverWay("archiver, the copy's chunks of 1,000, one a delete", async (_target, day) => day.copied),
    archiverWay("archiver, one chunk a day", async (_target, day) => [day.whole]),
    archiverWay("archiver, planned chunks of 1,000", (target) => deleter.planChunks(target, 1_000)),
    {
      way: "pt-archiver --purge --bulk-delete --limit 1000 --commit-each",
      async prepare(table) {
        const where = `${FILTER_COLUMN} < '${endOfData(size)}'`;
        return async () => (await ptArchiverPurge(primary, { database: LIVE_DATABASE, table, where })).rows;
      },
    },
  ];
  /** An archiver way: each day's chunks deleted in order, joined toward `targetMs` as the cleanup joins them (0: one a delete). */
  function archiverWay(
    way: string,
    chunksOf: (target: ChunkTarget, day: RecordedDay) => Promise<readonly DayChunk[]>,
    targetMs = 0,
    using: DayDeleter = deleter,
  ) {
    return {
      way,
      async prepare(table: string) {
        const planned = await chunkTargets(source, deleter, table, dayList);
        return async () => {
          let deleted = 0;
          for (const { target, ...day } of planned.days) {
            const chunks = await chunksOf(target, day);
            const unit = Math.max(1, ...chunks.map((chunk) => chunk.rows));
            const pacer = createChunkPacer({
              targetMs,
              max: Math.max(1, Math.floor(MAX_DELETE_ROWS / unit)),
            });
            for (let index = 0; index < chunks.length; ) {
              const taken = chunks.slice(index, index + pacer.next(chunks.length - index));
              const started = performance.now();
              const rows = rowsOf(await using.deleteChunk(target, joinChunks(taken), planned.sideEffects));
              const ms = performance.now() - started;
              pacer.observe(rows, ms, unit);
              deleted += rows;
              index += taken.length;
              const key = `${round} ${way}`;
              deleteMs.set(key, [...(deleteMs.get(key) ?? []), ms]);
            }
          }
          return deleted;
        };
      },
    };
  }
  const costs: Cost[] = [];
  let round = 0;
  try {
    for (round = 1; round <= rounds; round++) {
      for (const { way, prepare } of ways) {
        const table = "deleted_copy";
        await admin.query(`CREATE TABLE ${table} LIKE ${ARCHIVER_TABLE}`);
        await admin.query(`INSERT INTO ${table} SELECT * FROM ${ARCHIVER_TABLE}`);
        await admin.query(`SELECT COUNT(*) FROM ${table} FORCE INDEX (PRIMARY) WHERE payload IS NOT NULL`);
        await admin.query(`SELECT COUNT(*) FROM ${table} FORCE INDEX (idx_created_at)`);
        const run = await prepare(table);
        costs.push({ ...(await measured(admin, primary.pid, way, run)), round });
        await admin.query(`DROP TABLE ${table}`);
        console.log(`[round ${round}] ${way}`);
      }
    }
  } finally {
    await pool.end();
    await admin.end();
  }
  return costs;
}

async function chunkTargets(
  source: ReturnType<typeof createMysqlSourceDatabase>,
  deleter: DayDeleter,
  table: string,
  dayList: readonly string[],
) {
  const schema = await source.describeTable(table);
  if (!schema) throw new Error(`${table} is missing`);
  const by = { kind: "key", column: "id", unsigned: true } as const;
  const result = [];
  for (const day of dayList) {
    const scope = { table, column: FILTER_COLUMN, day: day as ChunkTarget["scope"]["day"] };
    const figures = await source.dayFigures(schema, FILTER_COLUMN, scope.day);
    const key = figures.key;
    if (!key || figures.fingerprint === undefined) throw new Error(`${table} ${day}: no key figures`);
    const whole: DayChunk = {
      first: key.min,
      last: key.max,
      rows: figures.rows,
      sum: key.sum,
      fingerprint: figures.fingerprint,
      wholeDay: true,
    };
    // The chunks the copy records, from the copy's own read of the day.
    const stream = source.streamDay(schema, FILTER_COLUMN, scope.day, 1_000);
    for await (const _batch of stream.batches);
    const copied = [...(stream.stats().chunks ?? [])];
    copied.push({ ...(copied.pop() as DayChunk), wholeDay: true });
    result.push({ target: { scope, schema, by } satisfies ChunkTarget, whole, copied });
  }
  return { days: result, sideEffects: await deleter.sideEffects(table) };
}

/** A day's chunks as its copy record gives them: one for the whole day, or the 1,000-row chunks the copy cut. */
interface RecordedDay {
  readonly whole: DayChunk;
  readonly copied: readonly DayChunk[];
}

function rowsOf(outcome: Awaited<ReturnType<DayDeleter["deleteChunk"]>>): number {
  if (outcome.kind !== "deleted") throw new Error(`a chunk was not deleted: ${JSON.stringify(outcome)}`);
  return outcome.rows;
}

function dayWhere(day: string): string {
  return `${FILTER_COLUMN} >= '${day} 00:00:00' AND ${FILTER_COLUMN} < '${addDays(day, 1)} 00:00:00'`;
}

/** The 99th percentile and the longest of a way's delete transactions in a round. */
function transactions(key: string): string {
  const ms = [...(deleteMs.get(key) ?? [])].sort((a, b) => a - b);
  if (ms.length === 0) return "-";
  const p99 = ms[Math.min(ms.length - 1, Math.ceil(ms.length * 0.99) - 1)] ?? 0;
  return `${p99.toFixed(1)} / ${(ms.at(-1) ?? 0).toFixed(1)}`;
}

function printCosts(costs: readonly Cost[]): void {
  const total = (cost: Cost) => cost.runningUs + cost.purgeUs;
  const isPeer = (cost: Cost) => cost.way.startsWith("pt-archiver");
  const peerOf = (cost: Cost) => costs.find((other) => isPeer(other) && other.round === cost.round);
  console.log(
    "\n| round | way | rows | seconds | server CPU µs/row while running | purge µs/row after | total µs/row | ÷ pt-archiver's | delete ms p99 / max |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const cost of costs) {
    const peer = peerOf(cost);
    const ratio = peer ? `${(total(cost) / total(peer)).toFixed(2)}×` : "-";
    console.log(
      `| ${cost.round} | ${cost.way} | ${cost.rows.toLocaleString("en-US")} | ${cost.seconds} | ${cost.runningUs} | ${cost.purgeUs} | ${total(cost).toFixed(2)} | ${ratio} | ${transactions(`${cost.round} ${cost.way}`)} |`,
    );
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? 0;
  const peer = median(costs.filter(isPeer).map(total));
  const floor = median(costs.filter((cost) => cost.way === costs[0]?.way).map(total));
  console.log(
    `\nDeleting 1.5× as fast as pt-archiver while taking no more of the server's time a second needs at most ` +
      `${(peer / 1.5).toFixed(2)} µs a row (pt-archiver's ${peer.toFixed(2)} ÷ 1.5, lower medians); ` +
      `a DELETE alone costs ${floor.toFixed(2)}.`,
  );
  console.log(JSON.stringify({ days, rowsPerDay: ROWS_PER_DAY, costs }));
}
