import type { PartitionedTable } from "../../ports/partitioned-table";

/** The in-memory source's tables are never partitioned: every day takes the chunked path. */
export function createUnpartitionedTable(): PartitionedTable {
  const never = (): never => {
    throw new Error("the in-memory source has no partitions");
  };
  return {
    partitioning: async () => ({ kind: "none" }),
    mayExchange: async () => ({ ok: false }),
    insertTriggers: async () => [],
    secondsSinceWrite: async () => undefined,
    dayCounts: async () => never(),
    dayFigures: async () => never(),
    sliceFigures: async () => never(),
    twinName: (table, partition) => `archiver_twin__${table}__${partition}`,
    twinRows: async () => undefined,
    describeDetach: () => never(),
    detach: async () => never(),
    putBack: async () => never(),
    dropTwin: async () => never(),
    detachedTwins: async () => [],
    detachedPartitions: async () => [],
  };
}
