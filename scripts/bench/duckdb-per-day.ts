/**
 * The warehouse's share of a day's fixed cost: 365 days of 10 synthetic rows,
 * each replaced through DuckDbWarehouse.replaceDay with its record entry (the
 * copy's path: delete the day, append, count, record, commit), into a
 * temporary database file. Prints the CPU per day of the whole process (DuckDB's
 * threads included) and of the main thread, and the wall time per day.
 * Beside `pnpm bench per-day`, it tells how much of a task's fixed cost is
 * DuckDB's alone.
 *
 * `--floor` times instead the least a day can cost with the same guarantees,
 * through @duckdb/node-api and mysql2 directly (duckdbFloors, mysqlFloors):
 * what no change to the archiver's own code can go under on this machine.
 *
 *   pnpm exec tsx scripts/bench/duckdb-per-day.ts [--days N] [--rows N] [--floor]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { addDays, type Row } from "@table-archiver/core";
import { createDuckDbWarehouse } from "@table-archiver/core/duckdb";
import type { CopiedDayRecord } from "@table-archiver/core/ports";
import mysql from "mysql2/promise";
import { BENCH_MYSQL_URL, ensureBenchTable } from "./bench-table";
import { localServerPid, processCpuSeconds } from "./process-cpu";
import { syntheticSchema } from "./synthetic-schema";

const { values } = parseArgs({
  options: {
    days: { type: "string", default: "365" },
    rows: { type: "string", default: "10" },
    floor: { type: "boolean", default: false },
  },
});
const days = Number(values.days);
const rowsPerDay = Number(values.rows);
const schema = syntheticSchema({ fractionDigits: 6 });
const destination = { dataset: "bench", table: "orders" };

function rowsOf(day: string, first: number): Row[] {
  return Array.from({ length: rowsPerDay }, (_, i) => [
    String(first + i),
    `${day} ${String(i % 24).padStart(2, "0")}:00:00.000000`,
    i,
    `customer-${i}`,
    "12.34",
    1.5,
    1,
    '{"sku": "S1"}',
  ]);
}

/** CPU per day of the whole process and of the main thread, and wall time per day, since `start`. */
function meter() {
  const cpu = process.cpuUsage();
  const main = process.threadCpuUsage();
  const began = performance.now();
  const perDay = (used: NodeJS.CpuUsage) => Math.round(((used.user + used.system) / 1000 / days) * 100) / 100;
  return () => ({
    cpuMsPerDay: perDay(process.cpuUsage(cpu)),
    mainThreadCpuMsPerDay: perDay(process.threadCpuUsage(main)),
    wallMsPerDay: Math.round(((performance.now() - began) / days) * 100) / 100,
  });
}

/** Each day through DuckDbWarehouse.replaceDay, as a copy task does. */
async function throughWarehouse(folder: string) {
  const warehouse = await createDuckDbWarehouse({ path: join(folder, "bench.duckdb"), dataset: "bench" });
  try {
    await warehouse.ensureTable(destination, schema, "created_at");
    const measured = meter();
    for (let index = 0; index < days; index++) {
      const day = addDays("2024-01-01", index);
      const rows = rowsOf(day, index * rowsPerDay + 1);
      async function* batches() {
        yield rows;
      }
      const at = { destination, filterColumn: "created_at", day };
      await warehouse.ensureTable(destination, schema, "created_at");
      await warehouse.replaceDay(at, schema, batches(), "id", async ({ figures }) => {
        if (!figures || figures.rows !== rowsPerDay) throw new Error(`${day}: counted ${figures?.rows}`);
        const copy: CopiedDayRecord = {
          day,
          destination: destination.table,
          filterColumn: "created_at",
          figures: { ...figures, fingerprint: "0" },
          zeroDates: 0,
          bytes: 0,
          durationMs: 0,
          copiedAt: new Date().toISOString(),
        };
        return { kind: "copied", table: destination.table, copy };
      });
    }
    return {
      scenario: `${days} days of ${rowsPerDay} rows through DuckDbWarehouse.replaceDay`,
      ...measured(),
    };
  } finally {
    await warehouse.close();
  }
}

const TABLE = `"bench"."orders"`;
const RECORDS = `"bench"."_archiver_days"`;

/** A day's rows as SQL VALUES, for the floors that insert instead of appending. */
function valuesOf(rows: readonly Row[]): string {
  return rows
    .map((row) => `(${row.map((v) => (typeof v === "number" ? String(v) : `'${String(v)}'`)).join(", ")})`)
    .join(", ");
}

/** The rows through an appender, value by value (the warehouse fills whole vectors instead). */
async function appendRows(connection: DuckDBConnection, rows: readonly Row[]): Promise<void> {
  const appender = await connection.createAppender("orders", "bench");
  for (const row of rows) {
    appender.appendUBigInt(BigInt(row[0] as string));
    appender.appendVarchar(row[1] as string);
    appender.appendInteger(row[2] as number);
    appender.appendVarchar(row[3] as string);
    appender.appendVarchar(row[4] as string);
    appender.appendDouble(row[5] as number);
    appender.appendTinyInt(row[6] as number);
    appender.appendVarchar(row[7] as string);
    appender.endRow();
  }
  appender.closeSync();
}

const dayBounds = (day: string) =>
  `created_at >= TIMESTAMP '${day} 00:00:00' AND created_at < TIMESTAMP '${addDays(day, 1)} 00:00:00'`;
const FIGURES = `COUNT(*), COUNT(id), CAST(SUM(CAST(id AS HUGEINT)) AS VARCHAR), CAST(MIN(id) AS VARCHAR), CAST(MAX(id) AS VARCHAR)`;
/** A record entry of the size the copy writes (its JSON is about 400 characters). */
const entryOf = (day: string, rows: unknown) =>
  `{"day":"${day}","destination":"orders","filterColumn":"created_at","figures":{"rows":${rows},"key":{"column":"id"}},"zeroDates":0,"bytes":0,"durationMs":0,"copiedAt":"${new Date().toISOString()}","padding":"${"x".repeat(240)}"}`;

/**
 * The least DuckDB can do for a day with the copy's guarantees: in one
 * transaction, remove the day's old rows, add the new ones, count them, and
 * write the day's record; a wrong count rolls everything back. Each way into
 * a database file of its own with the archiver's settings:
 * - appender: what the warehouse does, without its code (4 calls: BEGIN and
 *   DELETE, the appender, the count read back, the record and COMMIT);
 * - appender-checked: the count not read back but checked in SQL against
 *   what was appended, in the call that writes the record and commits (3 calls);
 * - insert: the rows as INSERT ... VALUES with the DELETE (3 calls);
 * - one-call: one multi-statement call, the count checked in SQL (error()
 *   fails the statement, and with it the transaction) and written into the
 *   record there: the fewest round trips there can be.
 * Plus `commit-only`, a one-row autocommitted INSERT: what any durable write costs (the WAL synced).
 */
/** The warehouse's last two calls of a day: the count read back and checked, then the record written and committed. */
async function countAndRecord(connection: DuckDBConnection, day: string, rows: number): Promise<void> {
  const [figures] = (
    await connection.runAndReadAll(`SELECT ${FIGURES} FROM ${TABLE} WHERE ${dayBounds(day)}`)
  ).getRows();
  if (Number(figures?.[0]) !== rows) throw new Error(`${day}: counted ${figures?.[0]}`);
  await connection.run(
    `INSERT INTO ${RECORDS} VALUES ('orders', DATE '${day}', 'copied', '${entryOf(day, figures?.[0])}', current_timestamp); COMMIT`,
  );
}

async function duckdbFloors(folder: string) {
  const shapes = {
    appender: async (connection: DuckDBConnection, day: string, rows: readonly Row[]) => {
      await connection.run(`BEGIN TRANSACTION; DELETE FROM ${TABLE} WHERE ${dayBounds(day)}`);
      await appendRows(connection, rows);
      await countAndRecord(connection, day, rows.length);
    },
    "appender-checked": async (connection: DuckDBConnection, day: string, rows: readonly Row[]) => {
      await connection.run(`BEGIN TRANSACTION; DELETE FROM ${TABLE} WHERE ${dayBounds(day)}`);
      await appendRows(connection, rows);
      const keys = rows.map((row) => BigInt(row[0] as string));
      const sum = keys.reduce((a, b) => a + b, 0n);
      const sorted = [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const [min, max] = [sorted[0], sorted.at(-1)];
      await connection.run(
        `SELECT CASE WHEN COUNT(*) = ${rows.length} AND COUNT(id) = ${keys.length} AND SUM(CAST(id AS HUGEINT)) = ${sum}
           AND MIN(id) = ${min} AND MAX(id) = ${max} THEN 0 ELSE error('wrong figures') END FROM ${TABLE} WHERE ${dayBounds(day)};
         INSERT INTO ${RECORDS} VALUES ('orders', DATE '${day}', 'copied', '${entryOf(day, rows.length)}', current_timestamp); COMMIT`,
      );
    },
    insert: async (connection: DuckDBConnection, day: string, rows: readonly Row[]) => {
      await connection.run(
        `BEGIN TRANSACTION; DELETE FROM ${TABLE} WHERE ${dayBounds(day)}; INSERT INTO ${TABLE} VALUES ${valuesOf(rows)}`,
      );
      await countAndRecord(connection, day, rows.length);
    },
    "one-call": async (connection: DuckDBConnection, day: string, rows: readonly Row[]) => {
      const entry = entryOf(day, "' || COUNT(*) || '");
      await connection.run(
        `BEGIN TRANSACTION; DELETE FROM ${TABLE} WHERE ${dayBounds(day)}; INSERT INTO ${TABLE} VALUES ${valuesOf(rows)};
         INSERT INTO ${RECORDS} SELECT 'orders', DATE '${day}', 'copied',
           CASE WHEN COUNT(*) = ${rows.length} THEN '${entry}' ELSE error('wrong count') END, current_timestamp
         FROM ${TABLE} WHERE ${dayBounds(day)}; COMMIT`,
      );
    },
    "commit-only": async (connection: DuckDBConnection, day: string) => {
      await connection.run(
        `INSERT INTO ${RECORDS} VALUES ('orders', DATE '${day}', 'copied', '${entryOf(day, 0)}', current_timestamp)`,
      );
    },
  };
  const results = [];
  for (const [shape, replace] of Object.entries(shapes)) {
    // The archiver's defaults (DUCKDB_DEFAULTS in packages/core/src/config).
    const instance = await DuckDBInstance.create(join(folder, `${shape}.duckdb`), {
      memory_limit: "32MB",
      threads: "1",
      checkpoint_threshold: "256MB",
    });
    const connection = await instance.connect();
    try {
      await connection.run(`CREATE SCHEMA bench; CREATE TABLE ${TABLE} (id UBIGINT, created_at TIMESTAMP, user_id INTEGER,
        name VARCHAR, amount DECIMAL(12,2), score DOUBLE, flag TINYINT, payload VARCHAR);
        CREATE TABLE ${RECORDS} (source_table VARCHAR NOT NULL, day DATE NOT NULL, kind VARCHAR NOT NULL,
        entry VARCHAR NOT NULL, recorded_at TIMESTAMP NOT NULL DEFAULT current_timestamp)`);
      const measured = meter();
      for (let index = 0; index < days; index++) {
        const day = addDays("2024-01-01", index);
        await replace(connection, day, rowsOf(day, index * rowsPerDay + 1));
      }
      results.push({ floor: `duckdb ${shape}`, ...measured() });
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  }
  return results;
}

/**
 * The least a day's read costs MySQL's client: one SELECT of the day through
 * mysql2 (`one-query`), beside the read's full round of statements as the
 * copy sends them (`copy-statements`: the table's definition checked, then
 * isolation, snapshot, key bounds, rows, COMMIT),
 * each on the pooled connection of the per-day bench's table. The server's CPU
 * is shown when it runs on this machine (shared with anything else it serves).
 */
async function mysqlFloors() {
  await ensureBenchTable({ table: "bench_per_day", rows: 3_650, firstDay: "2024-01-01", days: 365 });
  const connection = await mysql.createConnection({
    uri: BENCH_MYSQL_URL,
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
  });
  const server = localServerPid("mariadbd", "mysqld");
  const columns = "id, created_at, user_id, name, amount, score, flag, payload";
  const read = (day: string) =>
    connection.query({
      sql: `SELECT ${columns} FROM bench_per_day WHERE ${dayBounds(day).replaceAll("TIMESTAMP ", "")}`,
      rowsAsArray: true,
    });
  const shapes: Record<string, (day: string) => Promise<unknown>> = {
    "one-query": read,
    "copy-statements": async (day) => {
      await connection.query({ sql: "SHOW CREATE TABLE bench_per_day", rowsAsArray: true });
      await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
      await connection.query("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY");
      await connection.query({
        sql: `SELECT MIN(id), MAX(id), COUNT(*) FROM bench_per_day WHERE ${dayBounds(day).replaceAll("TIMESTAMP ", "")}`,
        rowsAsArray: true,
      });
      await read(day);
      await connection.query("COMMIT");
    },
  };
  const results = [];
  try {
    for (const [shape, readDay] of Object.entries(shapes)) {
      const serverAtStart = processCpuSeconds(server);
      const measured = meter();
      for (let index = 0; index < days; index++) await readDay(addDays("2024-01-01", index));
      const serverNow = processCpuSeconds(server);
      results.push({
        floor: `mysql2 ${shape}`,
        ...measured(),
        ...(serverAtStart !== undefined && serverNow !== undefined
          ? { serverCpuMsPerDay: Math.round(((serverNow - serverAtStart) * 1000 * 100) / days) / 100 }
          : {}),
      });
    }
  } finally {
    await connection.end();
  }
  return results;
}

const folder = await mkdtemp(join(tmpdir(), "duckdb-per-day-"));
try {
  if (values.floor) {
    for (const result of [...(await duckdbFloors(folder)), ...(await mysqlFloors())])
      console.log(JSON.stringify(result));
  } else {
    console.log(JSON.stringify(await throughWarehouse(folder)));
  }
} finally {
  await rm(folder, { recursive: true, force: true });
}
