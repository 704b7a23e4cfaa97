import type { Redis } from "ioredis";
import type { ScheduledDeliveries } from "../../ports/scheduled-deliveries";
import { withRedisErrors } from "./map-redis-error";

/** ScheduledDeliveries over Redis: one key per scheduled run under `prefix`, set once (SET NX) and forgotten after its time. */
export function createRedisScheduledDeliveries(
  redis: Redis,
  options: { readonly prefix?: string } = {},
): ScheduledDeliveries {
  const prefix = options.prefix ?? "archiver:delivered";
  return {
    async first(key, ttlMs) {
      const set = await withRedisErrors(() => redis.set(`${prefix}:${key}`, "1", "PX", ttlMs, "NX"));
      return set === "OK";
    },
  };
}
