import { describeCleanupStateContract } from "../../testing/cleanup-state-contract";
import { deleteKeysWithPrefix, testRedisUrl, uniqueName } from "../../testing/test-services";
import { createRedisClient } from "./create-redis-client";
import { createRedisCleanupState } from "./redis-cleanup-state";

describeCleanupStateContract("Redis", async () => {
  const redis = createRedisClient({ url: testRedisUrl, auth: undefined });
  // Every key of the state lives under the prefix, whatever the table.
  const prefix = uniqueName("cleanup_state");
  let tables = 0;
  return {
    state: createRedisCleanupState(redis, { prefix }),
    table: () => `t${++tables}`,
    async cleanup() {
      await deleteKeysWithPrefix(redis, prefix);
      await redis.quit();
    },
  };
});
