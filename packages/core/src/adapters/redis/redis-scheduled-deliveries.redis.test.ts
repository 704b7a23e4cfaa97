import { afterAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisUrl, uniqueName } from "../../testing/test-services";
import { createRedisClient } from "./create-redis-client";
import { createRedisScheduledDeliveries } from "./redis-scheduled-deliveries";

const redis = createRedisClient({ url: testRedisUrl, auth: undefined });
const prefix = uniqueName("delivered");
afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

describe("Redis scheduled deliveries", () => {
  it("answers true for exactly one of many concurrent deliveries of a key", async () => {
    const deliveries = createRedisScheduledDeliveries(redis, { prefix });
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => deliveries.first("orders:cleanup:m", 60_000)),
    );
    expect(answers.filter(Boolean)).toHaveLength(1);
    expect(await deliveries.first("orders:migration:m", 60_000)).toBe(true);
  });
});
