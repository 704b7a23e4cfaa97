import { mkdir, rm } from "node:fs/promises";
import { type Config, loadConfig } from "@table-archiver/core/config";
import mysql from "mysql2/promise";

/**
 * The server the benchmarks use, and their database (BENCH_DATABASE, so that two sittings on one server,
 * each with its own REDIS_URL database and working folder for `.bench/`, do not share tables).
 */
export const BENCH_SERVER = process.env.BENCH_MYSQL_URL ?? "mysql://root@127.0.0.1:3306";
export const BENCH_DATABASE = process.env.BENCH_DATABASE ?? "archiver_bench";
export const BENCH_MYSQL_URL = `${BENCH_SERVER}/${BENCH_DATABASE}`;

/** Benches print only errors: their output is one line of figures. */
export const benchLogger = {
  debug() {},
  info() {},
  warn() {},
  error: (message: string, fields?: object) => console.error(message, fields),
};

/**
 * Configuration for one bench scenario: the bench database, a fresh DuckDB
 * file of its own (`.bench/<name>.duckdb`, deleted first) and error-level
 * logs; `overrides` win over both and over the environment.
 */
export async function freshBenchConfig(
  name: string,
  overrides: Record<string, string> = {},
): Promise<Config> {
  await mkdir(".bench", { recursive: true });
  const path = `.bench/${name}.duckdb`;
  await rm(path, { force: true });
  await rm(`${path}.wal`, { force: true });
  return loadConfig({
    ...process.env,
    MYSQL_URL: BENCH_MYSQL_URL,
    DUCKDB_PATH: path,
    LOG_LEVEL: "error",
    ...overrides,
  });
}

export interface BenchTableSpec {
  readonly table: string;
  readonly rows: number;
  /** The first day of the data; rows spread evenly over `days` days, ids rising with time. */
  readonly firstDay: string;
  readonly days: number;
  /** Only `id` and `created_at` (for planning benches). */
  readonly narrow?: boolean;
}

/**
 * Creates (or reuses, when it already holds the expected rows) a benchmark
 * table shaped like a real events table: BIGINT UNSIGNED key, DATETIME(6)
 * indexed filter column, INT, VARCHAR(64), DECIMAL(12,2), DOUBLE, TINYINT and
 * a JSON document as TEXT. Rows are generated inside the server.
 */
export async function ensureBenchTable(spec: BenchTableSpec): Promise<{ created: boolean; seconds: number }> {
  const started = performance.now();
  const admin = await mysql.createConnection({ uri: BENCH_SERVER, multipleStatements: true });
  try {
    await admin.query(`CREATE DATABASE IF NOT EXISTS ${BENCH_DATABASE}`);
    await admin.query(`USE ${BENCH_DATABASE}`);
    const existing = await count(admin, spec.table);
    if (existing === spec.rows) return { created: false, seconds: 0 };
    await admin.query(`DROP TABLE IF EXISTS ${spec.table}`);
    await admin.query(
      spec.narrow
        ? `CREATE TABLE ${spec.table} (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
             created_at DATETIME(6) NOT NULL, KEY idx_created_at (created_at)) ENGINE=InnoDB`
        : `CREATE TABLE ${spec.table} (
             id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
             created_at DATETIME(6) NOT NULL,
             user_id INT NOT NULL,
             name VARCHAR(64) NOT NULL,
             amount DECIMAL(12,2) NOT NULL,
             score DOUBLE NULL,
             flag TINYINT NOT NULL,
             payload TEXT NULL,
             KEY idx_created_at (created_at)
           ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`,
    );
    const microsPerRow = (spec.days * 86_400_000_000) / spec.rows;
    const columns = spec.narrow ? "created_at" : "created_at, user_id, name, amount, score, flag, payload";
    const values = spec.narrow
      ? "ts"
      : `ts, n % 100000, CONCAT('user-', n % 100000, '-', MD5(n)), (n % 100000) / 100, n * 1.5 / 7, n % 128,
         CONCAT('{"n":', n, ',"tags":["a","b"],"ok":true}')`;
    // 10^k rows from a cross join of digits: portable across MySQL 8 and MariaDB.
    const chunk = 1_000_000;
    for (let offset = 0; offset < spec.rows; offset += chunk) {
      const size = Math.min(chunk, spec.rows - offset);
      await admin.query(
        `INSERT INTO ${spec.table} (${columns})
         SELECT ${values} FROM (
           SELECT n, TIMESTAMP('${spec.firstDay}') + INTERVAL FLOOR(n * ${microsPerRow}) MICROSECOND AS ts
           FROM (SELECT ${offset} + a.d + 10 * b.d + 100 * c.d + 1000 * d.d + 10000 * e.d + 100000 * f.d AS n
                 FROM ${digits("a")}, ${digits("b")}, ${digits("c")}, ${digits("d")}, ${digits("e")}, ${digits("f")}) s
           WHERE n < ${offset + size}
         ) g ORDER BY n`,
      );
    }
    return { created: true, seconds: (performance.now() - started) / 1000 };
  } finally {
    await admin.end();
  }
}

function digits(alias: string): string {
  return `(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4
           UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9) ${alias}`;
}

async function count(db: mysql.Connection, table: string): Promise<number> {
  const [rows] = (await db.query(
    "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?",
    [table],
  )) as unknown as [unknown[]];
  if (rows.length === 0) return -1;
  const [[result]] = (await db.query(`SELECT COUNT(*) AS n FROM ${table}`)) as unknown as [
    [{ n: number | string }],
  ];
  return Number(result.n);
}
