import { createRedisClient, loadConfig, migratedDaysKey } from "@table-archiver/core";
import { testRedisUrl } from "@table-archiver/core/testing";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { DEMO_TABLE } from "./demo-table";
import { resetDemoState } from "./reset-demo-state";

// A Redis database of its own, so the real demo's keys in database 0 are never touched.
const url = `${testRedisUrl.replace(/\/\d*$/, "")}/13`;
const config = loadConfig({ REDIS_URL: url, LOCAL_QUEUE_PREFIX: "archiver-demo" });
const redis = createRedisClient(config.redis);

beforeEach(async () => {
  await redis.flushdb();
});
afterAll(async () => {
  await redis.flushdb();
  redis.disconnect();
});

describe("resetDemoState", () => {
  it("refuses, deleting nothing, when Redis holds records of a table named like the demo's that it did not write", async () => {
    await redis.sadd(migratedDaysKey(DEMO_TABLE), "2024-01-01");
    await redis.hset(`archiver:copied:${DEMO_TABLE}`, "2024-01-01", "{}");
    await expect(resetDemoState(config)).rejects.toThrow(/did not write/);
    expect(await redis.smembers(migratedDaysKey(DEMO_TABLE))).toEqual(["2024-01-01"]);
    expect(await redis.hkeys(`archiver:copied:${DEMO_TABLE}`)).toEqual(["2024-01-01"]);
  });

  it("resets its own state, again on the next run", async () => {
    await resetDemoState(config);
    await redis.sadd(migratedDaysKey(DEMO_TABLE), "2024-01-01");
    await resetDemoState(config);
    expect(await redis.exists(migratedDaysKey(DEMO_TABLE))).toBe(0);
  });
});
