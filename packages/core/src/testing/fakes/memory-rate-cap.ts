import type { RateCap } from "../../ports/rate-cap";

/** RateCap in memory, by the given clock (milliseconds): the same spacing as Redis', for one process's tests. */
export function createMemoryRateCap(now: () => number = () => performance.now()): RateCap {
  const free = new Map<string, number>();
  return {
    async reserve(key, rows, perSecond) {
      if (rows <= 0) return 0;
      const at = now();
      const start = Math.max(free.get(key) ?? 0, at);
      free.set(key, start + (rows * 1000) / perSecond);
      return start - at;
    },
  };
}
