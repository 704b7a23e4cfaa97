import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { createRedisClient } from "../../adapters/redis/create-redis-client";
import { createRedisCleanupState } from "../../adapters/redis/redis-cleanup-state";
import { TransientError } from "../../errors";
import { deleteKeysWithPrefix, testRedisUrl, uniqueName } from "../../testing/test-services";
import { keepDayLease } from "./day-lease";

const redis = createRedisClient({ url: testRedisUrl, auth: undefined });
const prefix = uniqueName("lease");
const state = createRedisCleanupState(redis, { prefix });
const scope = { table: "orders", column: "created_at", day: "2024-01-01" };

afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  await redis.quit();
});

describe("keepDayLease", () => {
  it("keeps a lease alive past its time while the task runs, and gives it back", async () => {
    expect(await state.claim(scope, "task-a", 300)).toBe(true);
    const lease = keepDayLease(state, scope, "task-a", 300);
    try {
      // Three lease times with no delete: a long pause between chunks, or a long verification.
      await sleep(900);
      await expect(lease.check()).resolves.toBeUndefined();
      expect(await state.claim(scope, "task-b", 300)).toBe(false);
    } finally {
      await lease.release();
    }
    expect(await state.claim(scope, "task-b", 300)).toBe(true);
    await state.release(scope, "task-b");
  });

  it("refuses the next delete once another task took the day", async () => {
    const day = { ...scope, day: "2024-01-02" };
    expect(await state.claim(day, "task-a", 60_000)).toBe(true);
    const lease = keepDayLease(state, day, "task-a", 60_000);
    try {
      await state.release(day, "task-a");
      expect(await state.claim(day, "task-b", 60_000)).toBe(true);
      await expect(lease.check()).rejects.toBeInstanceOf(TransientError);
      await expect(lease.check()).rejects.toThrow(/lost the cleanup lease/);
    } finally {
      await lease.release();
      await state.release(day, "task-b");
    }
  });
});
