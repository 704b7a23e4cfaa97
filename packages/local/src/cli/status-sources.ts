import type { Config } from "@table-archiver/core/config";
import type { MysqlPool } from "@table-archiver/core/mysql";
import {
  type CleanupState,
  type Logger,
  type MigrationLedger,
  type PartitionedTable,
  QUEUE_NAME,
  type TaskQueue,
} from "@table-archiver/core/ports";
import {
  createRedisCleanupState,
  createRedisClient,
  createRedisMigrationLedger,
  withRedisErrors,
} from "@table-archiver/core/redis";
import type { Redis } from "ioredis";

/**
 * What `archiver status` reads: the queue's task count, each table's migrated
 * and cleaned days, and any twin table an interrupted partition cleanup left
 * in the source database.
 */
export interface StatusSources {
  readonly queue: Pick<TaskQueue, "name" | "count">;
  readonly storeLedger: Pick<MigrationLedger, "tables" | "migratedDays">;
  readonly cleanup: {
    readonly state: Pick<CleanupState, "cleanedDays">;
    readonly partitions: Pick<PartitionedTable, "detachedTwins">;
  };
}

/**
 * Opens only what status reads. With the local queue that is one Redis
 * client, as createRuntime opens it for the ledger and the cleanup records,
 * and the queue's count read from the same Redis without BullMQ (see
 * countLiveJobs): `archiver status` loads no BullMQ, opens no MySQL pool and
 * no warehouse. With Cloud Tasks the count comes from the Cloud Tasks client,
 * so the whole runtime is opened as before.
 */
export async function openStatusSources(
  config: Config,
  logger: Logger,
): Promise<StatusSources & { close(): Promise<void> }> {
  const queue = config.queue;
  if (queue.kind !== "local") {
    const { createRuntime } = await import("@table-archiver/core/runtime");
    return createRuntime(config, { logger });
  }
  const redis = createRedisClient(config.redis);
  // MySQL is asked one question (twins left behind): its driver loads only then, beside the Redis reads.
  let pool: Promise<MysqlPool> | undefined;
  return {
    queue: { name: QUEUE_NAME, count: () => withRedisErrors(() => countLiveJobs(redis, queue.prefix)) },
    storeLedger: createRedisMigrationLedger(redis),
    cleanup: {
      state: createRedisCleanupState(redis),
      partitions: {
        async detachedTwins() {
          const mysql = await import("@table-archiver/core/mysql");
          pool ??= mysql.openMysqlPool(config, { connectionLimit: 1 });
          return mysql.createMysqlPartitionedTable(await pool).detachedTwins();
        },
      },
    },
    async close() {
      redis.disconnect();
      await (await pool?.catch(() => undefined))?.end();
    },
  };
}

/** BullMQ's live states, as they are named in its keys: lists first, then sorted sets. */
const LIVE_LISTS = ["wait", "active"] as const;
const LIVE_SETS = ["delayed", "prioritized", "waiting-children"] as const;

/**
 * KEYS: the wait and active lists, then the delayed, prioritized and
 * waiting-children sets. The sum of their sizes, as BullMQ's getCounts script
 * counts them: a marker BullMQ before v5 left at the tail of the wait list
 * ("0:...") is not a job.
 */
const COUNT_SCRIPT = `
local n = 0
for i, key in ipairs(KEYS) do
  if i == 1 then
    local len = redis.call("LLEN", key)
    local last = redis.call("LINDEX", key, -1)
    if last and string.sub(last, 1, 2) == "0:" then len = math.max(len - 1, 0) end
    n = n + len
  elseif i == 2 then
    n = n + redis.call("LLEN", key)
  else
    n = n + redis.call("ZCARD", key)
  end
end
return n
`;

/**
 * The local queue's live tasks (waiting, delayed, active, prioritized,
 * waiting-children): what the queue adapter's `count()` answers through
 * BullMQ's getJobCountByTypes, read from the keys BullMQ keeps them in
 * (`<LOCAL_QUEUE_PREFIX>:jobs-migration:<state>`), in one script, so in one
 * atomic step as BullMQ reads them. status-sources.redis.test.ts holds the two
 * to the same answer with a job in every state.
 */
export async function countLiveJobs(redis: Redis, prefix: string): Promise<number> {
  const keys = [...LIVE_LISTS, ...LIVE_SETS].map((state) => `${prefix}:${QUEUE_NAME}:${state}`);
  return Number(await redis.eval(COUNT_SCRIPT, keys.length, ...keys));
}
