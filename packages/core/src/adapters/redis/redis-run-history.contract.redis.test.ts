import { describeRunHistoryContract } from "../../testing/run-history-contract";
import { deleteKeysWithPrefix, testRedisUrl, uniqueName } from "../../testing/test-services";
import { createRedisClient } from "./create-redis-client";
import { createRedisRunHistory } from "./redis-run-history";

describeRunHistoryContract("Redis", async () => {
  const redis = createRedisClient({ url: testRedisUrl, auth: undefined });
  // Every key of the history lives under the prefix.
  const prefix = uniqueName("run_history");
  return {
    history: createRedisRunHistory(redis, { prefix }),
    async cleanup() {
      await deleteKeysWithPrefix(redis, prefix);
      await redis.quit();
    },
  };
});
