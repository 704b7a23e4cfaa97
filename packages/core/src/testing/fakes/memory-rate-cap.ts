import { RATE_CAP_CATCH_UP_MS, type RateCap } from "../../ports/rate-cap";

/** RateCap in memory, by the given clock (milliseconds): the same spacing as Redis', for one process's tests. */
export function createMemoryRateCap(now: () => number = () => performance.now()): RateCap {
  const free = new Map<string, number>();
  return {
    async reserve(key, rows, perSecond) {
      if (rows <= 0) return 0;
      const at = now();
      const turn = Math.max(free.get(key) ?? 0, at);
      const start = Math.max(turn - RATE_CAP_CATCH_UP_MS, at);
      free.set(key, turn + (rows * 1000) / perSecond);
      return start - at;
    },
  };
}
