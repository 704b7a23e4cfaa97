import type mysql from "mysql2/promise";

/** The private primary's database for the tables the tools work on. */
export const LIVE_DATABASE = "live";
/** The archiver's table; the name also keys its records in the shared Redis (`mig_bench_live`). */
export const ARCHIVER_TABLE = "bench_live";
/** pt-archiver's identical copy. */
export const PT_TABLE = "bench_live_pt";
/**
 * Another identical copy, fresh for the archiver's capped phases (copied,
 * then cleaned, at pt-archiver's rate in the same run); its name keys its
 * records in the shared Redis too (`mig_bench_live_capped`).
 */
export const CAPPED_TABLE = "bench_live_capped";
/**
 * The same rows, RANGE-partitioned by month on the filter column, for the
 * archiver's partition cleanup (whole partitions exchanged out); its name
 * keys its records in the shared Redis too (`mig_bench_live_partitioned`).
 */
export const PARTITIONED_TABLE = "bench_live_partitioned";
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

/** One partition of PARTITIONED_TABLE: its name and the first day it no longer holds (none: MAXVALUE). */
export interface MonthPartition {
  readonly name: string;
  readonly below: string | undefined;
}

/** A partition per month from FIRST_DAY's to the last day's, then `pmax VALUES LESS THAN MAXVALUE`. */
export function monthPartitions(size: TableSize): MonthPartition[] {
  const last = new Date(`${endOfData(size)}T00:00:00Z`);
  last.setUTCDate(last.getUTCDate() - 1);
  const month = new Date(`${FIRST_DAY.slice(0, 7)}-01T00:00:00Z`);
  const partitions: MonthPartition[] = [];
  while (month <= last) {
    const name = `p${month.toISOString().slice(0, 7).replace("-", "")}`;
    month.setUTCMonth(month.getUTCMonth() + 1);
    partitions.push({ name, below: month.toISOString().slice(0, 10) });
  }
  partitions.push({ name: "pmax", below: undefined });
  return partitions;
}

/**
 * The table: BIGINT key, indexed DATETIME and four more columns,
 * `rowsPerDay` rows on each of `days` days from FIRST_DAY, keys rising with
 * time; then an identical copy for pt-archiver, another for the archiver's
 * capped phases (CAPPED_TABLE), and another in PARTITIONED_TABLE (`PRIMARY KEY (id, created_at)`, as partitioning needs,
 * `PARTITION BY RANGE (TO_DAYS(created_at))`, a partition a month). Rows are made inside the
 * server (MariaDB's sequence engine) in transactions of 50,000, so the
 * replica receives row events of a size it applies smoothly.
 */
export async function loadBenchTables(primary: mysql.Connection, size: TableSize): Promise<number> {
  const rows = size.days * size.rowsPerDay;
  await primary.query(`CREATE DATABASE IF NOT EXISTS ${LIVE_DATABASE}`);
  await primary.query(`USE ${LIVE_DATABASE}`);
  await primary.query(
    `DROP TABLE IF EXISTS ${ARCHIVER_TABLE}, ${PT_TABLE}, ${CAPPED_TABLE}, ${PARTITIONED_TABLE}`,
  );
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
  await primary.query(`CREATE TABLE ${CAPPED_TABLE} LIKE ${ARCHIVER_TABLE}`);
  const partitions = monthPartitions(size)
    .map(({ name, below }) =>
      below
        ? `PARTITION ${name} VALUES LESS THAN (TO_DAYS('${below}'))`
        : `PARTITION ${name} VALUES LESS THAN MAXVALUE`,
    )
    .join(",\n       ");
  await primary.query(
    `CREATE TABLE ${PARTITIONED_TABLE} (
       id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
       created_at DATETIME NOT NULL,
       user_id INT NOT NULL,
       name VARCHAR(64) NOT NULL,
       amount DECIMAL(12,2) NOT NULL,
       payload VARCHAR(255) NULL,
       PRIMARY KEY (id, created_at),
       KEY idx_created_at (created_at)
     ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
     PARTITION BY RANGE (TO_DAYS(created_at)) (
       ${partitions}
     )`,
  );
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
    for (const twin of [PT_TABLE, CAPPED_TABLE, PARTITIONED_TABLE]) {
      await primary.query(
        `INSERT INTO ${twin} SELECT * FROM ${ARCHIVER_TABLE} WHERE id BETWEEN ${from + 1} AND ${to + 1}`,
      );
    }
  }
  return rows;
}

export async function countRows(primary: mysql.Connection, table: string): Promise<number> {
  const [[row]] = (await primary.query(`SELECT COUNT(*) AS n FROM ${LIVE_DATABASE}.${table}`)) as unknown as [
    [{ n: number | string }],
  ];
  return Number(row.n);
}

/** Rows in each partition of PARTITIONED_TABLE, counted (not information_schema's estimate), in partition order. */
export async function partitionRows(
  server: mysql.Connection,
): Promise<{ partition: string; rows: number }[]> {
  const [names] = (await server.query(
    `SELECT PARTITION_NAME AS name FROM information_schema.PARTITIONS
      WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY PARTITION_ORDINAL_POSITION`,
    [LIVE_DATABASE, PARTITIONED_TABLE],
  )) as unknown as [{ name: string | null }[]];
  const counted = [];
  for (const { name } of names) {
    if (name === null) continue;
    const [[row]] = (await server.query(
      `SELECT COUNT(*) AS n FROM ${LIVE_DATABASE}.${PARTITIONED_TABLE} PARTITION (${name})`,
    )) as unknown as [[{ n: number | string }]];
    counted.push({ partition: name, rows: Number(row.n) });
  }
  return counted;
}

/** Tables the archiver's partition cleanup left behind in the bench's database (twins of an unfinished exchange). */
export async function leftTwins(server: mysql.Connection): Promise<string[]> {
  const [rows] = (await server.query(
    "SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME LIKE 'archiver\\_twin\\_\\_%'",
    [LIVE_DATABASE],
  )) as unknown as [{ name: string }[]];
  return rows.map((r) => r.name);
}
