import type { ScheduledDeliveries } from "../../ports/scheduled-deliveries";

/** ScheduledDeliveries in memory, for one process's tests (keys never expire). */
export function createMemoryScheduledDeliveries(): ScheduledDeliveries {
  const seen = new Set<string>();
  return {
    async first(key) {
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    },
  };
}
