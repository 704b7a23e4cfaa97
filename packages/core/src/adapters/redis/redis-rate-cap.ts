import type { Redis } from "ioredis";
import { RATE_CAP_CATCH_UP_MS, type RateCap } from "../../ports/rate-cap";
import { withRedisErrors } from "./map-redis-error";

/**
 * The reservation, atomic in Redis: the key holds the instant (in
 * microseconds of Redis' own clock) at which the budget is next free, the
 * even turn of the next reservation. A reservation takes its rows' share of
 * a second from there (or from now, when that has passed) and may start up
 * to ARGV[3] microseconds before it (RATE_CAP_CATCH_UP_MS), never before
 * now. Kept a little past its use, then forgotten.
 */
const RESERVE_LUA = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local free = tonumber(redis.call('GET', KEYS[1]) or '0')
local turn = math.max(free, now)
local start = math.max(turn - tonumber(ARGV[3]), now)
local next = turn + math.floor(tonumber(ARGV[1]) * 1000000 / tonumber(ARGV[2]))
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
        redis.eval(RESERVE_LUA, 1, `${prefix}:${key}`, rows, perSecond, RATE_CAP_CATCH_UP_MS * 1000),
      );
      return Number(waitMs);
    },
  };
}
