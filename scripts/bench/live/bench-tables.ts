import type mysql from "mysql2/promise";

/** The private primary's database for the two tables the tools work on. */
export const LIVE_DATABASE = "live";
/** The archiver's table; the name also keys its records in the shared Redis (`mig_bench_live`). */
export const ARCHIVER_TABLE = "bench_live";
/** pt-archiver's identical copy. */
export const PT_TABLE = "bench_live_pt";
export const FILTER_COLUMN = "created_at";
export const FIRST_DAY = "2024-01-01";

export interface TableSize {
  readonly days: number;
  readonly rowsPerDay: number;
}

/** The first instant after the data, for pt-archiver's `--where` (every row goes). */
export function endOfData(size: TableSize): string {
  const end = new Date(`${FIRST_DAY}T00:00:00Z`);
  end.setUTCDate(end.getUTCDate() + size.days);
  return end.toISOString().slice(0, 10);
}

/**
 * The table: BIGINT key, indexed DATETIME and four more columns,
 * `rowsPerDay` rows on each of `days` days from FIRST_DAY, keys rising with
 * time; then an identical copy for pt-archiver. Rows are made inside the
 * server (MariaDB's sequence engine) in transactions of 50,000, so the
 * replica receives row events of a size it applies smoothly.
 */
export async function loadBenchTables(primary: mysql.Connection, size: TableSize): Promise<number> {
  const rows = size.days * size.rowsPerDay;
  await primary.query(`CREATE DATABASE IF NOT EXISTS ${LIVE_DATABASE}`);
  await primary.query(`USE ${LIVE_DATABASE}`);
  await primary.query(`DROP TABLE IF EXISTS ${ARCHIVER_TABLE}, ${PT_TABLE}`);
  await primary.query(
    `CREATE TABLE ${ARCHIVER_TABLE} (
       id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
       created_at DATETIME NOT NULL,
       user_id INT NOT NULL,
       name VARCHAR(64) NOT NULL,
       amount DECIMAL(12,2) NOT NULL,
       payload VARCHAR(255) NULL,
       KEY idx_created_at (created_at)
     ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`,
  );
  await primary.query(`CREATE TABLE ${PT_TABLE} LIKE ${ARCHIVER_TABLE}`);
  const secondsPerRow = 86_400 / size.rowsPerDay;
  const step = 50_000;
  for (let from = 0; from < rows; from += step) {
    const to = Math.min(rows, from + step) - 1;
    await primary.query(
      `INSERT INTO ${ARCHIVER_TABLE} (id, created_at, user_id, name, amount, payload)
       SELECT seq + 1, TIMESTAMP('${FIRST_DAY}') + INTERVAL FLOOR(seq * ${secondsPerRow}) SECOND,
              seq % 100000, CONCAT('user-', seq % 100000, '-', LEFT(MD5(seq), 12)), (seq % 100000) / 100,
              CONCAT('{"n":', seq, ',"tags":["a","b"],"ok":true}')
       FROM seq_${from}_to_${to}`,
    );
    await primary.query(
      `INSERT INTO ${PT_TABLE} SELECT * FROM ${ARCHIVER_TABLE} WHERE id BETWEEN ${from + 1} AND ${to + 1}`,
    );
  }
  return rows;
}

export async function countRows(primary: mysql.Connection, table: string): Promise<number> {
  const [[row]] = (await primary.query(`SELECT COUNT(*) AS n FROM ${LIVE_DATABASE}.${table}`)) as unknown as [
    [{ n: number | string }],
  ];
  return Number(row.n);
}
