import { afterAll, describe, expect, it } from "vitest";
import { createMemoryRateCap } from "../../testing/fakes/memory-rate-cap";
import { deleteKeysWithPrefix, testRedisUrl, uniqueName } from "../../testing/test-services";
import { createRedisClient } from "./create-redis-client";
import { createRedisRateCap } from "./redis-rate-cap";

const redis = createRedisClient({ url: testRedisUrl, auth: undefined });
const prefix = uniqueName("rate");
afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

describe.each([
  ["Redis", () => createRedisRateCap(redis, { prefix: `${prefix}:${uniqueName("t")}` })],
  ["memory", () => createMemoryRateCap()],
])("%s rate cap", (_name, create) => {
  it("spaces the reservations of two workers so that together they keep to the rate", async () => {
    const cap = create();
    const started = performance.now();
    // Two workers reserve 50 rows each, ten times, at 1000 rows a second: 1000 rows take a second.
    const starts = (
      await Promise.all(
        [1, 2].map(async () => {
          const at: number[] = [];
          for (let i = 0; i < 10; i++)
            at.push(performance.now() - started + (await cap.reserve("orders", 50, 1000)));
          return at;
        }),
      )
    )
      .flat()
      .sort((a, b) => a - b);
    // Each reservation starts 50 ms after the one before, whoever made it (a few ms for the round trips).
    const last = starts.at(-1) ?? 0;
    expect(last).toBeGreaterThanOrEqual(19 * 50 - 5);
    for (let i = 1; i < starts.length; i++) {
      expect((starts[i] ?? 0) - (starts[i - 1] ?? 0)).toBeGreaterThanOrEqual(45);
    }
  });

  it("keeps tables apart, and a reservation of no rows costs nothing", async () => {
    const cap = create();
    expect(await cap.reserve("a", 1000, 1000)).toBeLessThanOrEqual(5);
    expect(await cap.reserve("b", 1000, 1000)).toBeLessThanOrEqual(5);
    expect(await cap.reserve("a", 0, 1000)).toBe(0);
    expect(await cap.reserve("a", 10, 1000)).toBeGreaterThan(900);
  });
});
