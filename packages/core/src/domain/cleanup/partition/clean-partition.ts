import { TransientError } from "../../../errors";
import type { CalendarDay } from "../../../model/calendar-day";
import type { CopiedDayRecord } from "../../../model/copied-day-record";
import type { CleanPartitionTask } from "../../../model/task";
import type { PartitionDays } from "../../../ports/partitioned-table";
import { taskThrottle } from "../../pacing/throttle";
import { describeSourceTable, TASK_FIELDS } from "../../source-table";
import { type CleanupDeps, markDayDone, pendingDays } from "../cleanup-deps";
import { cleanDay, type DayCleanupReport } from "../day/clean-day";
import { claimDayLease, type DayLease } from "../day-lease";
import { readPartitionPaths } from "./partition-paths";
import {
  askWarehouse,
  exchangeCheck,
  type RowsReading,
  rowsIn,
  twinReading,
  verifyRows,
} from "./partition-rows";

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

/** A partition this task emptied nothing of. */
export const untouched = (partition: string) =>
  ({ outcome: "already-done", partition, days: [], rowsDeleted: 0 }) as const;

/**
 * Empties one partition whose every row lies on a migrated day that passes
 * verification, without deleting a row:
 * 1. check it on counts (see verifyRows): a row on a day not migrated or on
 *    no day, a day whose count differs from its copy, or a day refused on
 *    its record sends it down the chunked path. A partition the server may
 *    have written since its days were copied is hashed here too, day by day,
 *    and judged against the warehouse;
 * 2. exchange it with an empty twin table: its rows leave the live table in
 *    one atomic step, and nothing can write them any more;
 * 3. hash the twin's rows under the task's throttles and pace (see
 *    RowsReading): each day identical to its copy record and the warehouse,
 *    the twin is dropped and the days marked cleaned; otherwise (a row
 *    changed since its copy, or arrived or changed between 1 and 2) its rows
 *    go back into the live table, in the same partition, and the days take
 *    the chunked path with its usual refusals. This is the proof, made where
 *    nothing can change the rows.
 * The chunked path queues a task for each pending day of the partition but
 * `task.day`, which this task cleans itself (cleanDay, reported as `own`):
 * the queue holds this very task under that day's name.
 * Every day of the partition is leased while this runs, so no day task
 * deletes from it at the same time. A crash anywhere leaves the twin absent,
 * empty, or holding the partition's rows, which the retry tells apart.
 */
export async function cleanPartition(
  deps: CleanupDeps,
  task: CleanPartitionTask,
): Promise<PartitionCleanup & { readonly own?: DayCleanupReport }> {
  const { table, partition } = task;
  const partitions = deps.partitions;
  const schema = await describeSourceTable(deps.source, table, task.filterColumn, TASK_FIELDS);
  const [sideEffects, { pending }] = await Promise.all([
    deps.deleter.sideEffects(table),
    pendingDays(deps, table),
  ]);
  const paths = await readPartitionPaths(partitions, table, pending, {
    column: task.filterColumn,
    sideEffects,
  });
  const path = paths.partitions.find((candidate) => candidate.partition === partition);
  const twin = await partitions.twinRows(table, partition);
  if (!path && twin === undefined) return untouched(partition);
  // A twin left by an earlier attempt is verified by the days it holds, wherever the table's partitions
  // now put them (the operator's rotation may have dropped or reorganized the emptied partition meanwhile).
  const days = twin ? await twinDays(deps, task, pending, path?.days ?? []) : (path?.days ?? []);
  const context = { table, partition, twin: partitions.twinName(table, partition) };
  const chunked = async (reason: string) => {
    deps.logger.warn("cleanup: partition takes the chunked path", { ...context, reason, days: days.length });
    const others = days.filter((day) => day !== task.day);
    const { partition: _whole, ...dayTask } = task;
    await deps.queue.enqueue(others.map((day) => ({ ...dayTask, day })));
    const own = days.includes(task.day) ? { own: await cleanDay(deps, dayTask) } : {};
    return { ...untouched(partition), outcome: "chunked", reason, ...own } as const;
  };
  if (twin === undefined && path?.path !== "exchange") {
    return chunked(path?.reason ?? "the partition is no longer a candidate");
  }

  // Every lease is given back before the chunked path, whose own day's cleanDay takes that day's lease.
  const lease = await claimAll(deps, table, task.filterColumn, days);
  const done = await (async (): Promise<PartitionCleanup | { readonly chunked: string }> => {
    const records = await deps.ledger.copiedDays(table, days);
    const throttle = taskThrottle(deps, context, () => lease.check());
    const inPartition = { schema, column: task.filterColumn, rows: { partition }, throttle };
    const inTwin = { ...inPartition, rows: { twinOf: partition } };
    const held = askWarehouse(deps, inPartition, days, records);
    let detachedRows = twin ?? 0;
    if (twin === undefined || twin === 0) {
      if (twin === 0) await partitions.dropTwin(table, partition);
      // Step 1: counts, and content too when the partition may have been written since its copies.
      const reading = (await writtenSinceCopied(deps, task, records)) ? "every day" : "counts";
      deps.logger.info("cleanup: checking the partition before the exchange", { ...context, reading });
      const check = exchangeCheck(await verifyRows(deps, inPartition, days, records, reading, held));
      if ("chunked" in check) return check;
      // The exchange waits for the throttles too: nothing leaves the table while a replica lags.
      await throttle.beforeChunk(true);
      await lease.check();
      await partitions.detach(table, partition);
      detachedRows = check.rows;
      deps.logger.info("cleanup: partition detached into its twin", { ...context, days: check.days });
    } else {
      deps.logger.warn("cleanup: resuming a partition an earlier attempt detached", {
        ...context,
        rows: twin,
      });
    }

    // Step 3: the twin, which nothing writes, hashed and then checked for rows the reads missed (unproven).
    const reading = twinReading(deps, inTwin, detachedRows);
    const detached = await verifyRows(deps, inTwin, days, records, reading, held);
    const refused = typeof detached === "string" ? detached : await unproven(deps, task, detached, reading);
    if (typeof detached === "string" || refused !== undefined) {
      const rows = await partitions.putBack(table, partition);
      await partitions.dropTwin(table, partition);
      deps.logger.warn("cleanup: the detached rows were put back", { ...context, rows, reason: refused });
      return { chunked: `after detaching: ${refused}` };
    }
    await lease.check();
    await partitions.dropTwin(table, partition);
    for (const [day, { rows }] of detached.days) {
      const done = { rowsDeleted: rows, chunksDone: 0, figures: records.get(day)?.figures };
      await markDayDone(deps, { table, day }, done);
    }
    const rowsDeleted = rowsIn(detached);
    const cleanedDays = [...detached.days.keys()].sort();
    deps.logger.info("cleaned partition", { ...context, days: cleanedDays.length, rowsDeleted });
    return { outcome: "cleaned", partition, days: cleanedDays, rowsDeleted };
  })().finally(() => lease.release());
  return "chunked" in done ? chunked(done.chunked) : done;
}

/**
 * Why the twin may not be dropped although its days passed: it holds rows
 * beyond the ones verified. A read of every row in one pass leaves none out;
 * reads a day at a time are checked against the twin's COUNT(*).
 */
async function unproven(
  deps: CleanupDeps,
  task: CleanPartitionTask,
  verified: PartitionDays,
  reading: RowsReading,
): Promise<string | undefined> {
  if (reading === "one pass") return undefined;
  const proven = rowsIn(verified);
  const total = (await deps.partitions.twinRows(task.table, task.partition)) ?? 0;
  return total === proven ? undefined : `the twin holds ${total} rows, ${proven} of them on verified days`;
}

/**
 * Whether the server may have written to the partition since the earliest
 * copy of its days (its last write, see PartitionedTable.secondsSinceWrite,
 * less than CLOCK_MARGIN_SECONDS before it, or unknown): such a partition is
 * hashed in place before the exchange, so that a row changed since its copy
 * keeps it in place rather than leaving with the others and coming back.
 */
async function writtenSinceCopied(
  deps: CleanupDeps,
  task: CleanPartitionTask,
  records: ReadonlyMap<CalendarDay, CopiedDayRecord>,
): Promise<boolean> {
  const copied = [...records.values()].map((record) => Date.parse(record.copiedAt));
  if (copied.length === 0 || copied.some((at) => !Number.isFinite(at))) return true;
  const since = await deps.partitions.secondsSinceWrite(task.table, task.partition);
  if (since === undefined) return true;
  const oldestCopyAge = (deps.clock().getTime() - Math.min(...copied)) / 1000;
  return since <= oldestCopyAge + CLOCK_MARGIN_SECONDS;
}

/** The server's write times are whole seconds, and its clock and the archiver's may differ by a little. */
const CLOCK_MARGIN_SECONDS = 5;

/** The partition's days, and the pending days the twin holds rows of. */
async function twinDays(
  deps: CleanupDeps,
  task: CleanPartitionTask,
  pending: readonly CalendarDay[],
  days: readonly CalendarDay[],
): Promise<CalendarDay[]> {
  const held = await deps.partitions.dayCounts(task.table, task.filterColumn, { twinOf: task.partition });
  const waiting = new Set(pending);
  return [...new Set([...days, ...[...held.days.keys()].filter((day) => waiting.has(day))])].sort();
}

/** One lease of every day of the partition; none when another task holds any of them. */
async function claimAll(
  deps: CleanupDeps,
  table: string,
  column: string,
  days: readonly CalendarDay[],
): Promise<DayLease> {
  const holder = crypto.randomUUID();
  const leases: DayLease[] = [];
  const all: DayLease = {
    check: async () => void (await Promise.all(leases.map((lease) => lease.check()))),
    release: async () => void (await Promise.all(leases.map((lease) => lease.release()))),
  };
  for (const day of days) {
    const lease = await claimDayLease(deps.state, { table, column, day }, holder);
    if (!lease) {
      await all.release();
      throw new TransientError(
        `${table} ${day} is being cleaned by another task; the partition's task retries later`,
      );
    }
    leases.push(lease);
  }
  return all;
}
