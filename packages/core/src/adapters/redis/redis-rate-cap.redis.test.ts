import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { RATE_CAP_CATCH_UP_MS } from "../../ports/rate-cap";
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
  it("spaces the reservations of two workers so that together they keep to the rate, each at most the catch-up allowance early", async () => {
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
    // The k-th reservation's even turn is 50k ms in, whoever made it; it may start up to the allowance before
    // it (a few ms for the round trips), and the twentieth one's turn is 950 ms in.
    starts.forEach((start, k) => {
      expect(start).toBeGreaterThanOrEqual(50 * k - RATE_CAP_CATCH_UP_MS - 5);
    });
    expect(starts.at(-1)).toBeGreaterThanOrEqual(19 * 50 - RATE_CAP_CATCH_UP_MS - 5);
  });

  it("makes up the time a late unit lost: a worker alternately slower and faster than its share keeps the cap's pace", async () => {
    const cap = create();
    // 100 rows at 1000 a second: a share of 100 ms. The work takes 160 ms, then 40 ms, in turn. Without catching
    // up, each late unit would lose its 60 ms for good: eight units would end 980 ms in, not about 800.
    const started = performance.now();
    for (let i = 0; i < 8; i++) {
      await sleep(await cap.reserve("orders", 100, 1000));
      await sleep(i % 2 === 0 ? 160 : 40);
    }
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(800 - RATE_CAP_CATCH_UP_MS);
    expect(elapsed).toBeLessThan(900);
  });

  it("keeps tables apart, and a reservation of no rows costs nothing", async () => {
    const cap = create();
    expect(await cap.reserve("a", 1000, 1000)).toBeLessThanOrEqual(5);
    expect(await cap.reserve("b", 1000, 1000)).toBeLessThanOrEqual(5);
    expect(await cap.reserve("a", 0, 1000)).toBe(0);
    // Its turn is a second in: it starts at most the catch-up allowance before.
    expect(await cap.reserve("a", 10, 1000)).toBeGreaterThan(1000 - RATE_CAP_CATCH_UP_MS - 5);
  });
});
