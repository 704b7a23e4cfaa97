import type { CalendarDay, TaskKind } from "@table-archiver/core";
import type { Config } from "@table-archiver/core/config";
import { LIVE_STATES, localJobIdPrefix, localQueueKeys } from "@table-archiver/core/local-queue";
import { QUEUE_NAME } from "@table-archiver/core/ports";
import { cleanupKeys, copiedDaysKey, createRedisClient, migratedDaysKey } from "@table-archiver/core/redis";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { type DemoWarehouse, demoWarehouse } from "./reset-demo-warehouse";

/**
 * The prefix of the records the runtime keeps per table: the copy records
 * (`archiver:copied:<table>`) and the cleanup state (`archiver:cleanup:...`),
 * whatever LOCAL_QUEUE_PREFIX is.
 */
const RECORDS_PREFIX = "archiver";
const TASK_KINDS: readonly TaskKind[] = ["copy", "clean"];

/**
 * Marks the table's state in Redis as the demo's. `mig_<table>` and
 * `archiver:*:<table>` are named by the table alone, so on a Redis that also
 * tracks a real table of that name they would be that table's records.
 */
export function demoOwnerKey(table: string): string {
  return `archiver-demo:owns:${table}`;
}

export interface DemoState {
  readonly table: string;
  readonly destination: string;
}

/** Every Redis record of `table` and the ids of its jobs in the local queue under `queuePrefix`. */
export async function demoTableState(
  redis: Redis,
  table: string,
  queuePrefix: string,
): Promise<{ keys: string[]; jobIds: string[] }> {
  const pattern = globEscape(table);
  const any = "*" as CalendarDay;
  const queue = localQueueKeys(queuePrefix);
  const keys = new Set<string>([
    migratedDaysKey(table),
    copiedDaysKey(table),
    cleanupKeys(RECORDS_PREFIX, table).cleaned,
    ...TASK_KINDS.map((kind) => queue.queuedDays(kind, table)),
  ]);
  const patterns = [
    // The cleanup state of each day and its lease, by the adapter's own key names.
    cleanupKeys(RECORDS_PREFIX, pattern, any).day,
    cleanupKeys(RECORDS_PREFIX, pattern, any).lease,
    // Any other record of the table under the records' prefix: archiver:<kind>:<table>[:<day>].
    `${RECORDS_PREFIX}:*:${pattern}`,
    `${RECORDS_PREFIX}:*:${pattern}:*`,
  ];
  for (const match of patterns) for (const key of await scan(redis, match)) keys.add(key);
  const list = [...keys];
  const pipeline = redis.pipeline();
  for (const key of list) pipeline.exists(key);
  const results = (await pipeline.exec()) ?? [];
  const existing = list.filter((_, index) => results[index]?.[1] === 1);
  const jobIds: string[] = [];
  for (const kind of TASK_KINDS) {
    const idPrefix = localJobIdPrefix(kind, table);
    for (const key of await scan(redis, `${globEscape(queue.job)}${globEscape(idPrefix)}*`)) {
      const id = key.slice(queue.job.length);
      // A job's own sub-keys (`<id>:logs`, `<id>:lock`, ...) go with the job.
      if (!id.includes(":")) jobIds.push(id);
    }
  }
  return { keys: existing.sort(), jobIds: jobIds.sort() };
}

/**
 * Forgets what an earlier demo run left of its table: every record in Redis
 * (migrated days, copy records, per-day cleanup state and leases, cleaned
 * days), its jobs in the local queue, and its table in the warehouse.
 *
 * Refuses, changing nothing, when that state exists but was not written by
 * the demo (no owner mark). Refuses too when the queue holds live tasks of
 * other tables: the demo works the queue until it is empty and would run them.
 */
export async function resetDemoState(config: Config, demo: DemoState): Promise<void> {
  if (config.queue.kind !== "local") throw new Error("the demo's queue is the local one");
  const prefix = config.queue.prefix;
  const redis = createRedisClient(config.redis, { maxRetriesPerRequest: null });
  const where = `Redis at ${config.redis.url}`;
  let warehouse: DemoWarehouse | undefined;
  try {
    const state = await demoTableState(redis, demo.table, prefix);
    const owned = (await redis.exists(demoOwnerKey(demo.table))) === 1;
    if (!owned && (state.keys.length > 0 || state.jobIds.length > 0)) {
      const shown = [...state.keys, ...state.jobIds.map((id) => `job ${id}`)];
      throw new Error(
        `${where} already holds records of a table named ${demo.table} that the demo did not write ` +
          `(${shown.slice(0, 3).join(", ")}${shown.length > 3 ? `, ... ${shown.length} in all` : ""}); ` +
          "point REDIS_URL at another Redis (or database, redis://host:6379/1) for the demo, " +
          "or give the demo another table name with ARCHIVER_DEMO_TABLE",
      );
    }
    warehouse = await demoWarehouse(config, demo.destination, demo.table);
    if (!owned && (await warehouse.exists())) {
      throw new Error(
        `the warehouse ${warehouse.describe} already holds ${warehouse.table}, which the demo did not write; ` +
          "drop it, or give the demo another warehouse file with ARCHIVER_DEMO_DUCKDB_PATH",
      );
    }

    const queue = new Queue(QUEUE_NAME, { connection: redis, prefix });
    queue.on("error", () => {});
    try {
      for (const id of state.jobIds) {
        if ((await queue.remove(id)) !== 1) {
          throw new Error(
            `the demo's task ${id} is being worked in the local queue ${prefix}:${QUEUE_NAME}; ` +
              "stop the worker that runs it (pnpm dev, pnpm archiver worker, another pnpm demo) and run the demo again",
          );
        }
      }
      const others = await queue.getJobCountByTypes(...LIVE_STATES);
      if (others > 0) {
        throw new Error(
          `the local queue ${prefix}:${QUEUE_NAME} holds ${others} tasks of other tables; the demo works the queue ` +
            "until it is empty and would run them too: let them finish first (pnpm archiver worker --drain), " +
            "or give the demo a queue of its own with ARCHIVER_DEMO_QUEUE_PREFIX",
        );
      }
    } finally {
      await queue.close();
    }

    await warehouse.drop();
    if (state.keys.length > 0) await redis.del(...state.keys);
    await redis.set(demoOwnerKey(demo.table), new Date().toISOString());
  } finally {
    warehouse?.close();
    redis.disconnect();
  }
}

async function scan(redis: Redis, match: string): Promise<string[]> {
  const keys = new Set<string>();
  for await (const batch of redis.scanStream({ match, count: 1000 }) as AsyncIterable<string[]>) {
    for (const key of batch) keys.add(key);
  }
  return [...keys];
}

/** `value` matched literally in a SCAN pattern. */
function globEscape(value: string): string {
  return value.replace(/[*?[\]\\]/g, "\\$&");
}
