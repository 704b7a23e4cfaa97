import type { Config } from "@table-archiver/core";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { DEMO_TABLE } from "./demo-table";

/** Forgets what an earlier demo run left: its migrated-days set, records and queue. */
export async function resetDemoState(config: Config): Promise<void> {
  const redis = new Redis(config.redis.url, {
    maxRetriesPerRequest: null,
    ...(config.redis.auth ? { password: config.redis.auth } : {}),
  });
  try {
    const keys: string[] = [`mig_${DEMO_TABLE}`];
    for await (const batch of redis.scanStream({ match: `archiver:*:${DEMO_TABLE}`, count: 500 })) {
      keys.push(...(batch as string[]));
    }
    await redis.del(...keys);
    const queue = new Queue("jobs-migration", { connection: redis, prefix: config.queue.localPrefix });
    await queue.obliterate({ force: true });
    await queue.close();
  } finally {
    redis.disconnect();
  }
}
