import type { Redis } from "ioredis";
import type { RateCap } from "../../ports/rate-cap";
import { withRedisErrors } from "./map-redis-error";

/**
 * The reservation, atomic in Redis: the key holds the instant (in
 * microseconds of Redis' own clock) at which the budget is next free. A
 * reservation starts there, or now when that has passed, and moves it on by
 * the rows' share of a second. Kept a little past its use, then forgotten.
 */
const RESERVE_LUA = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local free = tonumber(redis.call('GET', KEYS[1]) or '0')
local start = math.max(free, now)
local next = start + math.floor(tonumber(ARGV[1]) * 1000000 / tonumber(ARGV[2]))
redis.call('SET', KEYS[1], next, 'PX', math.ceil((next - now) / 1000) + 60000)
return math.ceil((start - now) / 1000)
`;

/** RateCap over Redis: one key per table and mode under `prefix`, shared by every worker and function. */
export function createRedisRateCap(redis: Redis, options: { readonly prefix?: string } = {}): RateCap {
  const prefix = options.prefix ?? "archiver:rate";
  return {
    async reserve(key, rows, perSecond) {
      if (rows <= 0) return 0;
      const waitMs = await withRedisErrors(() =>
        redis.eval(RESERVE_LUA, 1, `${prefix}:${key}`, rows, perSecond),
      );
      return Number(waitMs);
    },
  };
}
