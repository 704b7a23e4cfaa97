import { type Config, createRedisClient, migratedDaysKey, QUEUE_NAME } from "@table-archiver/core";
import { Queue } from "bullmq";
import { DEMO_TABLE } from "./demo-table";

/**
 * Marks the demo's table state in Redis as the demo's. `mig_orders` and
 * `archiver:*:orders` are named by the table alone, so on a Redis that also
 * tracks a real table named orders they would be that table's records.
 */
const OWNER_KEY = `archiver-demo:owns:${DEMO_TABLE}`;

/**
 * Forgets what an earlier demo run left: its migrated-days set, records and
 * queue. Refuses, changing nothing, when that state exists but was not
 * written by the demo.
 */
export async function resetDemoState(config: Config): Promise<void> {
  const redis = createRedisClient(config.redis, { maxRetriesPerRequest: null });
  try {
    const keys: string[] = [migratedDaysKey(DEMO_TABLE)];
    for await (const batch of redis.scanStream({ match: `archiver:*:${DEMO_TABLE}`, count: 500 })) {
      keys.push(...(batch as string[]));
    }
    const existing = await redis.exists(...keys);
    if (existing > 0 && (await redis.exists(OWNER_KEY)) === 0) {
      throw new Error(
        `Redis at ${config.redis.url} already holds ${migratedDaysKey(DEMO_TABLE)} or archiver:*:${DEMO_TABLE} that the demo did not write; ` +
          "point REDIS_URL at another Redis (or database, redis://host:6379/1) for the demo",
      );
    }
    await redis.del(...keys);
    await redis.set(OWNER_KEY, new Date().toISOString());
    const queue = new Queue(QUEUE_NAME, { connection: redis, prefix: config.queue.localPrefix });
    await queue.obliterate({ force: true });
    await queue.close();
  } finally {
    redis.disconnect();
  }
}
