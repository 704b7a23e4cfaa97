import pMap from "p-map";
import { TransientError } from "../../errors";
import type { CopiedDayRecord } from "../../ports/migration-ledger";
import type { PartitionDays } from "../../ports/partitioned-table";
import type { CalendarDay } from "../days/calendar-day";
import { describeExisting, requireDatetimeColumn } from "../migration/resolve-tables";
import type { CleanDayTask } from "../tasks/task-payload";
import { type DayFigures, describeFigures, sameFigures } from "../types/day-figures";
import { integerKeyColumn, type TableSchema } from "../types/table-schema";
import type { CleanupDeps } from "./cleanup-deps";
import { type DayLease, keepDayLease, LEASE_TTL_MS } from "./day-lease";
import { readPartitionPaths } from "./partition-paths";
import { judgeDay, warehouseFigures } from "./verify-day";

/** What emptying one partition did. */
export interface PartitionCleanup {
  readonly outcome: "cleaned" | "chunked" | "already-done";
  readonly partition: string;
  /** Days marked cleaned by the exchange (none on the chunked path). */
  readonly days: readonly CalendarDay[];
  readonly rowsDeleted: number;
  /** Why the chunked path, when it was taken. */
  readonly reason?: string;
}

/** The cleanup task of a partition: its oldest pending day, and the partition to empty. */
export type CleanPartitionTask = CleanDayTask & { readonly partition: string };

/**
 * Empties one partition whose every row lies on a migrated day that passes
 * verification, without deleting a row:
 * 1. verify every day of the partition (its rows counted and fingerprinted in
 *    one pass over the partition) against its copy record and the warehouse;
 *    any row on a day that is not migrated, not verified or refused, or on no
 *    day at all, sends the partition down the chunked path;
 * 2. exchange the partition with an empty twin table: its rows leave the live
 *    table in one atomic step, and nothing can write them any more;
 * 3. count and fingerprint the twin's rows day by day: identical to what step
 *    1 verified (or, resuming after a crash, to the copy records and the
 *    warehouse), the twin is dropped and the days marked cleaned; otherwise
 *    (a row arrived or changed between 1 and 2) its rows go back into the
 *    live table, where they land in the same partition, and the days take
 *    the chunked path, each checked row by row with its usual refusals.
 * The chunked path queues a cleanup task for each of the partition's pending
 * days but `task.day`, which this task then cleans itself (`cleanOneDay`).
 * Every day of the partition is leased while this runs, so no day task
 * deletes from it at the same time. A crash anywhere leaves the twin absent,
 * empty, or holding the partition's rows, which the retry tells apart.
 */
export async function cleanPartition(
  deps: CleanupDeps,
  task: CleanPartitionTask,
  cleanOneDay: (task: CleanDayTask) => Promise<unknown>,
): Promise<PartitionCleanup> {
  const { table, partition } = task;
  const partitions = deps.partitions;
  const schema = await describeExisting(deps.source, table, "table");
  requireDatetimeColumn(schema, task.filterColumn, "filterColumn");
  const [sideEffects, migrated, cleaned] = await Promise.all([
    deps.deleter.sideEffects(table),
    deps.ledger.migratedDays(table),
    deps.state.cleanedDays(table),
  ]);
  const done = new Set(cleaned);
  const pending = [...migrated].filter((day) => !done.has(day));
  const paths = await readPartitionPaths(partitions, table, pending, {
    column: task.filterColumn,
    sideEffects,
  });
  const path = paths.partitions.find((candidate) => candidate.partition === partition);
  const twin = await partitions.twinRows(table, partition);
  if (!path && twin === undefined) {
    return { outcome: "already-done", partition, days: [], rowsDeleted: 0 };
  }
  const days = path?.days ?? [];
  const context = { table, partition, twin: partitions.twinName(table, partition) };
  const chunked = async (reason: string): Promise<PartitionCleanup> => {
    deps.logger.warn("cleanup: partition takes the chunked path", { ...context, reason, days: days.length });
    const others = days.filter((day) => day !== task.day);
    const { partition: _whole, ...dayTask } = task;
    await deps.queue.enqueue(others.map((day) => ({ ...dayTask, day })));
    if (days.includes(task.day)) await cleanOneDay(dayTask);
    return { outcome: "chunked", partition, days: [], rowsDeleted: 0, reason };
  };
  if (twin === undefined && path?.path !== "exchange") {
    return chunked(path?.reason ?? "the partition is no longer a candidate");
  }

  const leases = await claimAll(deps, table, task.filterColumn, days);
  try {
    const records = await deps.ledger.copiedDays(table, days);
    let verified: PartitionDays | undefined;
    if (twin === undefined || twin === 0) {
      if (twin === 0) await partitions.dropTwin(table, partition);
      // Step 1: every row of the partition, on a pending day that passes verification.
      const rows = partitions.dayFigures(schema, task.filterColumn, { partition });
      const checked = await verifyRows(deps, schema, task.filterColumn, days, records, rows);
      if (typeof checked === "string") return await release(leases, () => chunked(checked));
      if (checked.days.size === 0) {
        return await release(leases, () =>
          chunked("the partition holds no rows; each day is checked on its own"),
        );
      }
      verified = checked;
      await Promise.all(leases.map((lease) => lease.check()));
      await partitions.detach(table, partition);
      deps.logger.info("cleanup: partition detached into its twin", { ...context, days: checked.days.size });
    } else {
      deps.logger.warn("cleanup: resuming a partition an earlier attempt detached", {
        ...context,
        rows: twin,
      });
    }

    // Step 3: the twin, which nothing writes, against what step 1 verified (or, resuming, against the records).
    const detached = await partitions.dayFigures(schema, task.filterColumn, { twinOf: partition });
    const mismatch = verified
      ? differences(verified, detached)
      : refusalOf(await verifyRows(deps, schema, task.filterColumn, days, records, detached));
    if (mismatch !== undefined) {
      const rows = await partitions.putBack(table, partition);
      await partitions.dropTwin(table, partition);
      deps.logger.warn("cleanup: the detached rows were put back", { ...context, rows, reason: mismatch });
      return await release(leases, () => chunked(`after detaching: ${mismatch}`));
    }
    await Promise.all(leases.map((lease) => lease.check()));
    await partitions.dropTwin(table, partition);
    const doneAt = deps.clock().toISOString();
    let rowsDeleted = 0;
    for (const [day, figures] of detached.days) {
      rowsDeleted += figures.rows;
      const record = records.get(day);
      await deps.state.markDone(
        { table, day },
        { rowsDeleted: figures.rows, chunksDone: 0, doneAt, ...(record ? { figures: record.figures } : {}) },
      );
    }
    const cleanedDays = [...detached.days.keys()].sort();
    deps.logger.info("cleaned partition", { ...context, days: cleanedDays.length, rowsDeleted });
    await releaseAll(leases);
    return { outcome: "cleaned", partition, days: cleanedDays, rowsDeleted };
  } catch (error) {
    await releaseAll(leases);
    throw error;
  }
}

/**
 * Why the rows may not leave at once, or, when they may, their figures by
 * day: every day that holds rows is one of the partition's pending days, and
 * passes verification with these rows as its source figures (copy record,
 * warehouse and rows agree, content fingerprint included); no row lies on no
 * day. The warehouse is asked about every pending day while the partition is
 * read, not after.
 */
export async function verifyRows(
  deps: CleanupDeps,
  schema: TableSchema,
  filterColumn: string,
  days: readonly CalendarDay[],
  records: ReadonlyMap<CalendarDay, CopiedDayRecord>,
  read: PartitionDays | Promise<PartitionDays>,
): Promise<PartitionDays | string> {
  const keyColumn = integerKeyColumn(schema)?.name;
  const held = pMap(
    days,
    async (day) => {
      const record = records.get(day);
      return [day, record && (await warehouseFigures(deps, record, filterColumn, day, keyColumn))] as const;
    },
    { concurrency: WAREHOUSE_CONCURRENCY },
  ).then((pairs) => new Map(pairs));
  // Read at once: a failed read of either side must not leave the other unawaited.
  const [rows, warehouse] = await Promise.all([read, held]);
  if (rows.outside > 0) return `${rows.outside} rows have a NULL or zero date, which no day holds`;
  for (const [day, source] of [...rows.days].sort(([a], [b]) => a.localeCompare(b))) {
    if (!warehouse.has(day))
      return `it holds rows of ${day}, which is not a migrated day waiting for cleanup`;
    const figures = warehouse.get(day);
    const verdict =
      figures instanceof Error
        ? { kind: "refused" as const, reason: `${schema.name} ${day}: ${figures.message}` }
        : judgeDay({
            table: schema.name,
            day,
            filterColumn,
            keyColumn,
            record: records.get(day),
            source,
            warehouse: figures,
          });
    if (verdict.kind !== "ready") {
      return `${day} is refused: ${verdict.kind === "refused" ? verdict.reason : "no rows"}`;
    }
  }
  return rows;
}

/** Warehouse figures asked at once for a partition's days (each a query; on BigQuery, a billed one). */
const WAREHOUSE_CONCURRENCY = 8;

function refusalOf(result: PartitionDays | string): string | undefined {
  return typeof result === "string" ? result : undefined;
}

/** What differs between the verified rows and the detached ones, or undefined when they are the same. */
function differences(verified: PartitionDays, detached: PartitionDays): string | undefined {
  if (detached.outside > 0) return `${detached.outside} rows with a NULL or zero date arrived`;
  const days = new Set([...verified.days.keys(), ...detached.days.keys()]);
  for (const day of [...days].sort()) {
    const before = verified.days.get(day);
    const after = detached.days.get(day);
    if (!before || !after || !same(before, after)) {
      return (
        `${day} changed between its verification and the exchange ` +
        `(verified ${before ? describeFigures(before) : "no rows"}, detached ${after ? describeFigures(after) : "no rows"})`
      );
    }
  }
  return undefined;
}

function same(a: DayFigures, b: DayFigures): boolean {
  return sameFigures(a, b) && a.fingerprint === b.fingerprint;
}

/** Leases every day of the partition; none when another task holds any of them. */
async function claimAll(
  deps: CleanupDeps,
  table: string,
  column: string,
  days: readonly CalendarDay[],
): Promise<DayLease[]> {
  const holder = crypto.randomUUID();
  const leases: DayLease[] = [];
  for (const day of days) {
    const scope = { table, column, day };
    if (!(await deps.state.claim(scope, holder, LEASE_TTL_MS))) {
      await releaseAll(leases);
      throw new TransientError(
        `${table} ${day} is being cleaned by another task; the partition's task retries later`,
      );
    }
    leases.push(keepDayLease(deps.state, scope, holder, LEASE_TTL_MS));
  }
  return leases;
}

async function releaseAll(leases: readonly DayLease[]): Promise<void> {
  await Promise.all(leases.map((lease) => lease.release()));
}

async function release<T>(leases: readonly DayLease[], then: () => Promise<T>): Promise<T> {
  await releaseAll(leases);
  return then();
}
