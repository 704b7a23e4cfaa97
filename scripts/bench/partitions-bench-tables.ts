/**
 * The partitions bench's two tables, rebuilt on every run: 1,000,000 rows over
 * the 366 days of 2024 in bench_partitioned, one partition a month, and the
 * same rows in bench_unpartitioned, pt-archiver's.
 */
import mysql from "mysql2/promise";
import { BENCH_DATABASE, BENCH_SERVER } from "./bench-table";

export const TABLE = "bench_partitioned";
export const PEER_TABLE = "bench_unpartitioned";
export const ROWS = 1_000_000;
export const FIRST_DAY = "2024-01-01";
export const DAYS = 366;

/**
 * Drops and rebuilds both tables: bench_partitioned filled inside the server
 * from the SEQUENCE engine (MariaDB), ids rising with time, and
 * bench_unpartitioned copied from it. Also drops twins an earlier failed run left.
 */
export async function buildTables(): Promise<number> {
  const started = performance.now();
  const admin = await mysql.createConnection({ uri: BENCH_SERVER });
  try {
    await admin.query(`CREATE DATABASE IF NOT EXISTS ${BENCH_DATABASE}`);
    await admin.query(`USE ${BENCH_DATABASE}`);
    await dropTwins();
    await admin.query(`DROP TABLE IF EXISTS ${TABLE}, ${PEER_TABLE}`);
    const columns = `id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
      created_at DATETIME(6) NOT NULL,
      user_id INT NOT NULL,
      name VARCHAR(64) NOT NULL,
      amount DECIMAL(12,2) NOT NULL,
      score DOUBLE NULL,
      flag TINYINT NOT NULL,
      payload TEXT NULL`;
    const months = Array.from({ length: 12 }, (_, i) => {
      const month = String(i + 1).padStart(2, "0");
      const below = i === 11 ? "2025-01-01" : `2024-${String(i + 2).padStart(2, "0")}-01`;
      return `PARTITION p2024_${month} VALUES LESS THAN (TO_DAYS('${below}'))`;
    });
    await admin.query(
      `CREATE TABLE ${TABLE} (${columns}, PRIMARY KEY (id, created_at), KEY idx_created_at (created_at))
       ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
       PARTITION BY RANGE (TO_DAYS(created_at)) (${months.join(", ")}, PARTITION pmax VALUES LESS THAN MAXVALUE)`,
    );
    const microsPerRow = (DAYS * 86_400_000_000) / ROWS;
    await admin.query(
      `INSERT INTO ${TABLE} (id, created_at, user_id, name, amount, score, flag, payload)
       SELECT n, TIMESTAMP('${FIRST_DAY}') + INTERVAL FLOOR((n - 1) * ${microsPerRow}) MICROSECOND,
              n % 100000, CONCAT('user-', n % 100000, '-', MD5(n)), (n % 100000) / 100, n * 1.5 / 7, n % 128,
              CONCAT('{"n":', n, ',"tags":["a","b"],"ok":true}')
       FROM (SELECT seq AS n FROM seq_1_to_${ROWS}) s ORDER BY n`,
    );
    await admin.query(
      `CREATE TABLE ${PEER_TABLE} (${columns}, PRIMARY KEY (id), KEY idx_created_at (created_at))
       ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`,
    );
    await admin.query(`INSERT INTO ${PEER_TABLE} SELECT * FROM ${TABLE} ORDER BY id`);
    return (performance.now() - started) / 1000;
  } finally {
    await admin.end();
  }
}

/** Twins (`archiver_twin__…`) left in the bench database by a run that failed midway. */
export async function dropTwins(): Promise<void> {
  const admin = await mysql.createConnection({ uri: BENCH_SERVER });
  try {
    const [rows] = (await admin.query(
      "SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME LIKE 'archiver\\_twin\\_\\_%'",
      [BENCH_DATABASE],
    )) as unknown as [{ name: string }[]];
    for (const { name } of rows) await admin.query(`DROP TABLE IF EXISTS \`${BENCH_DATABASE}\`.\`${name}\``);
  } finally {
    await admin.end();
  }
}
