/**
 * The server's CPU a row costs while a run deletes and afterwards while
 * InnoDB's purge catches up, less what the idle server uses meanwhile
 * (pnpm bench delete-cost).
 */
import type mysql from "mysql2/promise";
import { processCpuSeconds } from "./process-cpu";

export interface Cost {
  readonly way: string;
  readonly round?: number;
  readonly rows: number;
  readonly seconds: number;
  /** Server CPU a row while the statements ran. */
  readonly runningUs: number;
  /** Server CPU a row after them, until the purge caught up, less the idle server's own. */
  readonly purgeUs: number;
}

/**
 * Runs `run` on a settled server and counts the server's CPU while it runs
 * and afterwards until the purge has caught up, less what the idle server
 * uses in the same time.
 */
export async function measured(
  admin: mysql.Connection,
  pid: number,
  way: string,
  run: () => Promise<number>,
): Promise<Cost> {
  await settle(admin);
  const idleRate = await cpuRate(pid, 3_000);
  const cpuBefore = cpuOf(pid);
  const started = performance.now();
  const rows = await run();
  const seconds = (performance.now() - started) / 1000;
  const cpuRan = cpuOf(pid);
  const purgeStarted = performance.now();
  await settle(admin);
  const purgeSeconds = (performance.now() - purgeStarted) / 1000;
  const cpuAfter = cpuOf(pid);
  const us = (cpu: number) => Math.round((cpu * 1e6 * 100) / rows) / 100;
  return {
    way,
    rows,
    seconds: Math.round(seconds * 100) / 100,
    runningUs: us(cpuRan - cpuBefore - idleRate * seconds),
    purgeUs: us(Math.max(0, cpuAfter - cpuRan - idleRate * purgeSeconds)),
  };
}

/** Until the purge has nothing left and the dirty pages are flushed (at most two minutes). */
async function settle(admin: mysql.Connection): Promise<void> {
  await admin.query("SET GLOBAL innodb_max_dirty_pages_pct = 0");
  const deadline = performance.now() + 120_000;
  while (performance.now() < deadline) {
    const [rows] = (await admin.query(
      "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_history_list_length', 'Innodb_buffer_pool_pages_dirty')",
    )) as unknown as [{ Variable_name: string; Value: string }[]];
    if (rows.every((row) => Number(row.Value) < 100)) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await admin.query("SET GLOBAL innodb_max_dirty_pages_pct = DEFAULT");
}

async function cpuRate(pid: number, ms: number): Promise<number> {
  const before = cpuOf(pid);
  await new Promise((resolve) => setTimeout(resolve, ms));
  return (cpuOf(pid) - before) / (ms / 1000);
}

function cpuOf(pid: number): number {
  const cpu = processCpuSeconds(String(pid));
  if (cpu === undefined) throw new Error("no CPU figure for the private server");
  return cpu;
}
