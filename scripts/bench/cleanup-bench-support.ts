import { addDays, type CalendarDay, type CleanupDeps, copyDay } from "@table-archiver/core";
import type { Config } from "@table-archiver/core/config";
import type { createMysqlPool } from "@table-archiver/core/mysql";
import { copiedDaysKey, type createRedisClient, migratedDaysKey } from "@table-archiver/core/redis";
import { benchLogger } from "./bench-table";

// What the cleanup benches (cleanup.ts, partitions.ts) share: the copied state they start from, a settled
// redo log, a clean Redis, and a few helpers.

/**
 * The state a finished migration leaves: every day from `firstDay` copied by
 * the real copy task into `table`'s namesake destination and recorded, two at
 * a time. Returns the seconds it took.
 */
export async function copyAllDays(
  deps: CleanupDeps,
  config: Config,
  at: { readonly table: string; readonly firstDay: CalendarDay; readonly days: number; readonly now: Date },
): Promise<number> {
  const started = performance.now();
  const days: CalendarDay[] = [];
  for (let i = 0; i < at.days; i++) days.push(addDays(at.firstDay, i));
  await inParallel(days, 2, (day) =>
    copyDay(
      {
        source: deps.source,
        warehouse: deps.warehouse,
        ledger: deps.ledger,
        logger: benchLogger,
        clock: () => at.now,
        timeZone: "UTC",
        destinations: deps.destinations,
        batchRows: config.copyBatchRows,
      },
      { kind: "copy", table: at.table, destination: at.table, filterColumn: "created_at", day },
    ),
  );
  return (performance.now() - started) / 1000;
}

/**
 * Building a table and copying it leave InnoDB with a redo log nearly full
 * of unflushed changes; deletes started then stall on its forced flushing, a
 * cost of the bench's own setup, not of cleanup. Waits (at most a minute) until
 * MariaDB reports a checkpoint age under 16 MiB; MySQL has no such status and
 * goes on at once. Returns how long it waited.
 */
export async function waitForFlushedRedo(pool: ReturnType<typeof createMysqlPool>): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < 60_000) {
    const [rows] = await pool.query({
      sql: "SHOW GLOBAL STATUS LIKE 'Innodb_checkpoint_age'",
      rowsAsArray: true,
    });
    const age = Number((rows as unknown[][])[0]?.[1] ?? 0);
    if (age < 16_777_216) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return Math.round(performance.now() - started);
}

/** Drops what a run leaves in Redis (before it, and after it): `table`'s migrated days and copy records, and keys under `prefix`. */
export async function forgetRun(
  redis: ReturnType<typeof createRedisClient>,
  table: string,
  prefix: string,
): Promise<void> {
  const keys = [migratedDaysKey(table), copiedDaysKey(table)];
  for await (const batch of redis.scanStream({ match: `${prefix}:*`, count: 1000 })) keys.push(...batch);
  await redis.del(...keys);
}

/** Runs `run` over `items`, `width` at a time, answers in order. */
export async function inParallel<T, R>(
  items: readonly T[],
  width: number,
  run: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, width) }, async () => {
    while (next < items.length) {
      const index = next++;
      out[index] = await run(items[index] as T);
    }
  });
  await Promise.all(lanes);
  return out;
}

/** The rows `table` holds now. */
export async function countRows(pool: ReturnType<typeof createMysqlPool>, table: string): Promise<number> {
  const [rows] = await pool.query({ sql: `SELECT COUNT(*) FROM ${table}`, rowsAsArray: true });
  return Number((rows as unknown[][])[0]?.[0]);
}

export function round(n: number): number {
  return Math.round(n * 10) / 10;
}
