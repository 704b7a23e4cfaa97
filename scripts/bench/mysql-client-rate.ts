import { spawnSync } from "node:child_process";
import { BENCH_DATABASE, BENCH_SERVER } from "./bench-table";

/**
 * The yardstick the migration target is set against: how fast the mysql
 * command-line client reads the same rows on this machine today (the issue
 * measured about 750,000 rows/s when it set 300,000 rows/s, 40% of it).
 * The machine's speed moves from day to day; this figure moves with it, so a
 * year run is best read beside it. Best of two reads of the whole table, the
 * client printing tab-separated rows to /dev/null. `{ skipped }` says why
 * when there is no figure (no `mariadb` or `mysql` client on the PATH, or it failed).
 */
export function mysqlClientRate(
  table: string,
  rows: number,
): { client: string; rowsPerSecond: number } | { skipped: string } {
  const client = ["mariadb", "mysql"].find(
    (name) => spawnSync(name, ["--version"], { stdio: "ignore" }).status === 0,
  );
  if (!client) return { skipped: "no mariadb or mysql client on the PATH" };
  const url = new URL(BENCH_SERVER);
  const args = [
    "--batch",
    "--quick",
    "--skip-column-names",
    `--host=${url.hostname}`,
    `--port=${url.port || "3306"}`,
    `--user=${decodeURIComponent(url.username)}`,
    BENCH_DATABASE,
    "-e",
    `SELECT * FROM ${table}`,
  ];
  // A password goes through the environment, not the command line other users can read.
  const env = url.password ? { ...process.env, MYSQL_PWD: decodeURIComponent(url.password) } : process.env;
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < 2; run++) {
    const started = performance.now();
    const result = spawnSync(client, args, { stdio: ["ignore", "ignore", "pipe"], env });
    if (result.status !== 0) return { skipped: `${client} failed: ${String(result.stderr).trim()}` };
    best = Math.min(best, performance.now() - started);
  }
  return { client, rowsPerSecond: Math.round(rows / (best / 1000)) };
}
