import pMap from "p-map";
import type { CopiedDayRecord } from "../../ports/migration-ledger";
import type { PartitionDays, PartitionRows } from "../../ports/partitioned-table";
import type { CalendarDay } from "../days/calendar-day";
import { warehouseFigures } from "../records/held-copy";
import { type DayFigures, describeFigures, sameFigures } from "../types/day-figures";
import { integerKeyColumn, type TableSchema } from "../types/table-schema";
import type { CleanupDeps } from "./cleanup-deps";
import type { Throttle } from "./throttle";
import { judgeDay } from "./verify-day";

// Reading and verifying the rows of a partition, or of the twin it was exchanged with, day by day.

/** Where the rows are, and what paces reading them. */
export interface RowsToRead {
  readonly schema: TableSchema;
  readonly column: string;
  readonly rows: PartitionRows;
  /**
   * Waited on before each day's read and told how long it took: the task's
   * throttles (replica lag, history length...) and CLEANUP_NICE_RATIO apply to
   * these reads as they do to deletes. Absent (a dry run), days are read back to back.
   */
  readonly throttle?: Throttle;
}

/**
 * Why the rows may not leave at once, or, when they may, their figures by
 * day: every day that holds rows is one of the partition's pending days, and
 * passes verification with these rows as its source figures (copy record,
 * warehouse and rows agree, content fingerprint included); no row lies on no
 * day. Rows are first counted by day through the filter column's index; a
 * partition that fails on counts alone (a row on a day not migrated, a day
 * whose count differs from its copy) is refused after hashing at most that
 * one day. The warehouse is asked about every pending day meanwhile.
 */
export async function verifyRows(
  deps: CleanupDeps,
  read: RowsToRead,
  days: readonly CalendarDay[],
  records: ReadonlyMap<CalendarDay, CopiedDayRecord>,
): Promise<PartitionDays | string> {
  const { schema, column } = read;
  const keyColumn = integerKeyColumn(schema)?.name;
  const held = pMap(
    days,
    async (day) => {
      const record = records.get(day);
      return [day, record && (await warehouseFigures(deps, record, column, day, keyColumn))] as const;
    },
    { concurrency: WAREHOUSE_CONCURRENCY },
  ).then((pairs) => new Map(pairs));
  // Awaited on every path below, so a failed warehouse read is never left unhandled.
  const warehouse = held.catch((error: unknown) => error as Error);
  const counts = await deps.partitions.dayCounts(schema.name, column, read.rows);
  const early = refusalByCount(counts, new Set(days));
  if (early !== undefined) return early;
  // Days whose count already differs from their copy are hashed first: that day's refusal names every figure.
  const order = [...counts.days.keys()].sort(
    (a, b) =>
      Number(agrees(counts.days, records, a)) - Number(agrees(counts.days, records, b)) || a.localeCompare(b),
  );
  const source = new Map<CalendarDay, DayFigures>();
  for await (const [day, dayFigures] of hashDays(deps, read, order)) {
    const figures = await warehouse;
    if (figures instanceof Error) throw figures;
    const held = figures.get(day);
    const verdict =
      held instanceof Error
        ? { kind: "refused" as const, reason: `${schema.name} ${day}: ${held.message}` }
        : judgeDay({
            table: schema.name,
            day,
            filterColumn: column,
            keyColumn,
            record: records.get(day),
            source: dayFigures,
            warehouse: held,
          });
    if (verdict.kind !== "ready") {
      return `${day} is refused: ${verdict.kind === "refused" ? verdict.reason : "no rows"}`;
    }
    source.set(day, dayFigures);
  }
  return { days: source, outside: 0 };
}

/** The figures of every day of the rows, each day hashed on its own (paced by the throttle). */
export async function readDays(deps: CleanupDeps, read: RowsToRead): Promise<PartitionDays> {
  const counts = await deps.partitions.dayCounts(read.schema.name, read.column, read.rows);
  const days = new Map<CalendarDay, DayFigures>();
  for await (const [day, figures] of hashDays(deps, read, [...counts.days.keys()].sort()))
    days.set(day, figures);
  // Rows on no day are not hashed; their count is what refuses the partition.
  return { days, outside: counts.outside };
}

/**
 * Each day's figures, one statement a day through the filter column's index
 * (a short read the throttle can pause between); one pass over the whole
 * partition for a table whose filter column leads no index.
 */
async function* hashDays(
  deps: CleanupDeps,
  { schema, column, rows, throttle }: RowsToRead,
  days: readonly CalendarDay[],
): AsyncGenerator<readonly [CalendarDay, DayFigures]> {
  if (!schema.indexLeadingColumns.includes(column)) {
    const all = await deps.partitions.dayFigures(schema, column, rows);
    for (const day of days) yield [day, all.days.get(day) ?? { rows: 0 }];
    return;
  }
  let first = true;
  for (const day of days) {
    await throttle?.beforeChunk(first);
    first = false;
    const started = performance.now();
    const one = await deps.partitions.dayFigures(schema, column, rows, day);
    throttle?.afterChunk(performance.now() - started);
    yield [day, one.days.get(day) ?? { rows: 0 }];
  }
}

function refusalByCount(
  counts: { readonly days: ReadonlyMap<CalendarDay, number>; readonly outside: number },
  pending: ReadonlySet<CalendarDay>,
): string | undefined {
  if (counts.outside > 0) return `${counts.outside} rows have a NULL or zero date, which no day holds`;
  for (const day of [...counts.days.keys()].sort()) {
    if (!pending.has(day)) return `it holds rows of ${day}, which is not a migrated day waiting for cleanup`;
  }
  return undefined;
}

function agrees(
  counts: ReadonlyMap<CalendarDay, number>,
  records: ReadonlyMap<CalendarDay, CopiedDayRecord>,
  day: CalendarDay,
): boolean {
  return records.get(day)?.figures.rows === counts.get(day);
}

/** What differs between the verified rows and the detached ones, or undefined when they are the same. */
export function differences(verified: PartitionDays, detached: PartitionDays): string | undefined {
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

/** Warehouse figures asked at once for a partition's days (each a query; on BigQuery, a billed one). */
const WAREHOUSE_CONCURRENCY = 8;
