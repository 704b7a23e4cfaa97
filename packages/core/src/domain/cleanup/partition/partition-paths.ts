import { type CalendarDay, startOfDay } from "../../../model/calendar-day";
import type { DeleteSideEffects } from "../../../ports/day-deleter";
import type { PartitionedTable, Partitioning, RangePartition } from "../../../ports/partitioned-table";

/**
 * The path a partition's days take: emptied at once by exchange, or each day
 * deleted in checked chunks. `days` are the pending days (migrated, not yet
 * cleaned) whose rows the partition holds.
 */
export interface PartitionPath {
  readonly partition: string;
  readonly path: "exchange" | "chunked";
  /** Why the chunked path, in the operator's words (undefined for exchange). */
  readonly reason?: string;
  readonly days: readonly CalendarDay[];
}

/** The path of each partition holding pending days, and the pending days no partition empties at once. */
export interface PartitionPaths {
  readonly partitions: readonly PartitionPath[];
  readonly rest: readonly CalendarDay[];
}

/** What the choice depends on besides the table's partitioning. */
export interface PathFacts {
  readonly column: string;
  readonly sideEffects: DeleteSideEffects;
  /** The cleanup message's `exchange_partitions`: false sends every day down the chunked path. */
  readonly exchangePartitions?: boolean;
  /** The table's INSERT triggers, which rows put back after an exchange would fire again. */
  readonly insertTriggers?: readonly string[];
  /** Whether the account may create, exchange and drop twins, and the GRANT that would allow it. */
  readonly exchange: { readonly ok: boolean; readonly grant?: string };
  /**
   * Partitions an interrupted task left detached in a twin: their days stay
   * with that partition's task, which finishes the twin first, whatever the
   * table looks like now.
   */
  readonly detached?: ReadonlySet<string>;
}

/**
 * The path of each partition that holds pending days, decided from the
 * table's shape and the ledger alone (no row is read: planning stays a
 * matter of days). A partition is a candidate for the exchange unless
 * tableWideReason or partitionReason names why not; whether its rows are all
 * verified is checked by its task, before and after the exchange, and a
 * partition that fails goes the chunked path then. Days outside every
 * candidate are returned under `rest`.
 */
export function partitionPaths(
  partitioning: Partitioning,
  pending: readonly CalendarDay[],
  facts: PathFacts,
): PartitionPaths {
  if (partitioning.kind === "none") return { partitions: [], rest: pending };
  const sorted = [...pending].sort();
  if (partitioning.kind === "other") {
    const reason = `the table is partitioned as ${partitioning.description}; only RANGE partitions of the filter column are emptied at once`;
    return { partitions: [{ partition: "*", path: "chunked", reason, days: sorted }], rest: sorted };
  }
  const tableReason = tableWideReason(partitioning, facts);
  const partitions: PartitionPath[] = [];
  let from: string | undefined;
  for (const partition of partitioning.partitions) {
    const days = sorted.filter((day) => within(day, from, partition.below));
    const lower = from;
    from = partition.below;
    if (days.length === 0) continue;
    const reason = facts.detached?.has(partition.name)
      ? undefined
      : (tableReason ?? partitionReason(partition, lower));
    partitions.push({
      partition: partition.name,
      path: reason ? "chunked" : "exchange",
      days,
      ...(reason ? { reason } : {}),
    });
  }
  const exchanged = new Set(partitions.flatMap((p) => (p.path === "exchange" ? p.days : [])));
  return { partitions, rest: sorted.filter((day) => !exchanged.has(day)) };
}

function tableWideReason(
  partitioning: Extract<Partitioning, { kind: "range" }>,
  facts: PathFacts,
): string | undefined {
  if (facts.exchangePartitions === false) return 'the cleanup message sets "exchange_partitions": false';
  if (partitioning.column !== facts.column) {
    return `the table is partitioned by "${partitioning.column}", not by the filter column "${facts.column}"`;
  }
  if (facts.sideEffects.deleteTriggers.length > 0) {
    return `its DELETE triggers (${facts.sideEffects.deleteTriggers.join(", ")}) are to fire for every row, which only a delete does`;
  }
  if (facts.insertTriggers && facts.insertTriggers.length > 0) {
    return `its INSERT triggers (${facts.insertTriggers.join(", ")}) would fire again for rows an exchange has to put back, which only a delete avoids`;
  }
  if (facts.sideEffects.referencingKeys.length > 0) {
    return "foreign keys reference the table, and only a delete checks them row by row";
  }
  if (!facts.exchange.ok) {
    return `the account may not create, exchange and drop a twin table; grant it with: ${facts.exchange.grant ?? "CREATE, DROP, ALTER, INSERT on the database"}`;
  }
  return undefined;
}

function partitionReason(partition: RangePartition, lower: string | undefined): string | undefined {
  if (partition.below === undefined) return "it is the MAXVALUE partition, where new rows arrive";
  if (!isMidnight(partition.below) || (lower !== undefined && !isMidnight(lower))) {
    return "its bounds are not midnights, so it holds part of a day";
  }
  return undefined;
}

function isMidnight(instant: string): boolean {
  return /^\d{4}-\d{2}-\d{2} 00:00:00(?:\.0*)?$/.test(instant);
}

/** Whether the day's rows lie in [from, below): a day is whole inside a partition with midnight bounds. */
function within(day: CalendarDay, from: string | undefined, below: string | undefined): boolean {
  const start = startOfDay(day);
  return (from === undefined || start >= normal(from)) && (below === undefined || start < normal(below));
}

/** Instants compare as text once both have the same width. */
function normal(instant: string): string {
  return instant.slice(0, 19);
}

/** Reads the table's partitioning (and, for a range on a column, whether the account may exchange) and decides. */
export async function readPartitionPaths(
  partitions: PartitionedTable,
  table: string,
  pending: readonly CalendarDay[],
  facts: Omit<PathFacts, "exchange" | "insertTriggers">,
): Promise<PartitionPaths> {
  const partitioning = await partitions.partitioning(table);
  if (partitioning.kind !== "range")
    return partitionPaths(partitioning, pending, { ...facts, exchange: { ok: false } });
  const [exchange, detached, insertTriggers] = await Promise.all([
    partitions.mayExchange(table),
    partitions.detachedPartitions(table),
    partitions.insertTriggers(table),
  ]);
  return partitionPaths(partitioning, pending, {
    ...facts,
    exchange,
    insertTriggers,
    detached: new Set(detached),
  });
}
