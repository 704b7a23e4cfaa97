import type { CalendarDay } from "../../../model/calendar-day";
import type { CopiedDayRecord } from "../../../model/copied-day-record";
import { addFigures, type DayFigures } from "../../../model/day-figures";
import { integerKeyColumn, sliceableKey, type TableSchema } from "../../../model/table-schema";
import type { PartitionDays, PartitionRows } from "../../../ports/partitioned-table";
import type { Throttle } from "../../pacing/throttle";
import { warehouseDaysFigures } from "../../records/held-copy";
import type { CleanupDeps } from "../cleanup-deps";
import { type DayVerdict, judgeDay } from "../judge-day";

// Reading and verifying the rows of a partition, or of the twin it was exchanged with, day by day.

/** Where the rows are, and what paces reading them. */
export interface RowsToRead {
  readonly schema: TableSchema;
  readonly column: string;
  readonly rows: PartitionRows;
  /** The task's throttles and CLEANUP_NICE_RATIO, pacing each read as a delete (paced); none in a dry run. */
  readonly throttle?: Throttle;
}

/** The warehouse's figures of each day, asked once per partition task (on BigQuery, a billed query). */
export type HeldFigures = Promise<ReadonlyMap<CalendarDay, DayFigures | Error | undefined>>;

/**
 * Asks the warehouse for the figures of every day that has a copy record: one
 * query for the days copied to each destination (a partition's days are
 * usually all in one), an Error for a day whose recorded destination cannot
 * be used, nothing for a day without a record.
 */
export function askWarehouse(
  deps: CleanupDeps,
  { schema, column }: Pick<RowsToRead, "schema" | "column">,
  days: readonly CalendarDay[],
  records: ReadonlyMap<CalendarDay, CopiedDayRecord>,
): HeldFigures {
  const keyColumn = integerKeyColumn(schema)?.name;
  const byDestination = new Map<string, CalendarDay[]>();
  for (const day of days) {
    const destination = records.get(day)?.destination;
    if (destination !== undefined)
      byDestination.set(destination, [...(byDestination.get(destination) ?? []), day]);
  }
  const held = Promise.all(
    [...byDestination].map(([destination, copied]) =>
      warehouseDaysFigures(deps, destination, { filterColumn: column, days: copied }, keyColumn),
    ),
  ).then((answers) => {
    const figures = new Map<CalendarDay, DayFigures | Error | undefined>(days.map((day) => [day, undefined]));
    for (const answer of answers) for (const [day, held] of answer) figures.set(day, held);
    return figures;
  });
  // Handled here too: a task that fails before reading its rows must not leave the rejection unhandled.
  held.catch(() => undefined);
  return held;
}

/**
 * How much of the rows is read: `"every day"` hashes each day and judges it
 * against its copy record and the warehouse (the proof that the rows are the
 * copied ones); `"one pass"` proves the same with one read of every row that
 * reaches them all (see fitsOneRead); `"slices"` proves it in statements of
 * CLEANUP_PARTITION_SLICE_ROWS rows along the primary key that together reach
 * every row once; `"counts"` judges each day on its count and copy record
 * alone (a pre-check: what it lets through is proven by a later hashed read).
 */
export type RowsReading = "every day" | "one pass" | "counts" | "slices";

/**
 * Why the rows may not leave at once, or, when they may, their figures by
 * day: every day that holds rows is one of the partition's pending days, and
 * passes verification with these rows as its source figures (`reading` says
 * how much is read). Counted rows on a day not pending, or on no day, refuse
 * the rows without hashing any; a day whose count differs from its copy
 * refuses them after hashing that one day (so its refusal names every
 * figure, in the chunked path's words). A hashed row on no pending day
 * refuses them as a counted one would.
 */
export async function verifyRows(
  deps: CleanupDeps,
  read: RowsToRead,
  days: readonly CalendarDay[],
  records: ReadonlyMap<CalendarDay, CopiedDayRecord>,
  reading: RowsReading,
  held: HeldFigures = askWarehouse(deps, read, days, records),
): Promise<PartitionDays | string> {
  const { schema, column } = read;
  // Awaited on every path that judges a day, so a failed warehouse read is never left unhandled.
  const warehouse = held.catch((error: unknown) => error as Error);
  const keyColumn = integerKeyColumn(schema)?.name;
  const judge = async (day: CalendarDay, source: DayFigures, against: "warehouse" | "record") => {
    const record = records.get(day);
    const evidence = { table: schema.name, day, filterColumn: column, keyColumn, record, source };
    // Judged on its record alone, the day's own recorded figures stand in for the rows and the warehouse.
    if (against === "record") return refusal(day, judgeDay({ ...evidence, warehouse: record?.figures }));
    const figures = await warehouse;
    if (figures instanceof Error) throw figures;
    return refusal(day, judgeDay({ ...evidence, warehouse: figures.get(day) }));
  };
  const counts =
    reading === "one pass" || reading === "slices"
      ? undefined
      : await deps.partitions.dayCounts(schema.name, column, read.rows);
  const sorted = [...(counts?.days.keys() ?? [])].sort();
  if (counts) {
    const early = refusalByCount(counts, new Set(days));
    if (early !== undefined) return early;
    const differing = sorted.find((day) => records.get(day)?.figures.rows !== counts.days.get(day));
    if (differing !== undefined) {
      const hashed = await paced(read.throttle, true, () =>
        deps.partitions.dayFigures(schema, column, read.rows, differing),
      );
      const refused = await judge(differing, hashed.days.get(differing) ?? { rows: 0 }, "warehouse");
      if (refused !== undefined) return refused;
    }
  }
  const source = new Map<CalendarDay, DayFigures>();
  if (counts && reading === "counts") {
    for (const day of sorted) {
      const recorded = records.get(day)?.figures ?? { rows: counts.days.get(day) ?? 0 };
      const refused = await judge(day, recorded, "record");
      if (refused !== undefined) return refused;
      source.set(day, recorded);
    }
    return { days: source, outside: 0 };
  }
  // Every counted row is on a pending day by now (refusalByCount), so one pass reads just these days.
  const total = sorted.reduce((sum, day) => sum + (counts?.days.get(day) ?? 0), 0);
  const reads = !counts || fitsOneRead(deps, read, total) ? [undefined] : sorted;
  // Every day hashed before the first is judged: the reads go on while the warehouse answers.
  let outside = 0;
  const parts = reading === "slices" ? hashSlices(deps, read) : hashDays(deps, read, reads);
  for await (const part of parts) {
    outside += part.outside;
    for (const [day, figures] of part.days) {
      const before = source.get(day);
      source.set(day, before ? addFigures(before, figures) : figures);
    }
  }
  const stray = refusalByCount({ days: source, outside }, new Set(days));
  if (stray !== undefined) return stray;
  for (const day of new Set([...sorted, ...source.keys()])) {
    const figures = source.get(day) ?? { rows: 0 };
    const refused = await judge(day, figures, "warehouse");
    if (refused !== undefined) return refused;
    // Every counted row is a hashed one: a row the count put on a day whose hashed range does not
    // hold it would otherwise leave with the others, unproven. A read in one pass counted nothing.
    if (counts === undefined) continue;
    const counted = counts.days.get(day) ?? 0;
    if (figures.rows !== counted) {
      return `${day} is refused: ${counted} rows counted on it through the index, ${figures.rows} hashed`;
    }
  }
  return { days: source, outside: 0 };
}

/** verifyRows' answer before an exchange: the rows to detach on how many days, or why the chunked path instead. */
export function exchangeCheck(
  checked: PartitionDays | string,
): { readonly rows: number; readonly days: number } | { readonly chunked: string } {
  if (typeof checked === "string") return { chunked: checked };
  if (checked.days.size === 0)
    return { chunked: "the partition holds no rows; each day is checked on its own" };
  return { rows: rowsIn(checked), days: checked.days.size };
}

/** The rows of every day of `read`. */
export function rowsIn(read: PartitionDays): number {
  return [...read.days.values()].reduce((rows, figures) => rows + figures.rows, 0);
}

function refusal(day: CalendarDay, verdict: DayVerdict): string | undefined {
  if (verdict.kind === "ready") return undefined;
  return `${day} is refused: ${verdict.kind === "refused" ? verdict.reason : "no rows"}`;
}

/**
 * Ten delete chunks (CLEANUP_CHUNK_ROWS each) of rows hashed by one statement
 * at most: a read short enough for the throttle to pause between reads, and
 * for its snapshot not to hold InnoDB's purge back for long, long enough that
 * a partition of small days is not read in dozens of statements.
 */
const CHUNKS_PER_READ = 10;

/**
 * Whether `rows` rows are read in one pass, in the order they are stored:
 * when they fit one read, or when the filter column leads no index (a day's
 * range would read them all anyway).
 */
function fitsOneRead(deps: Pick<CleanupDeps, "settings">, read: RowsToRead, rows: number): boolean {
  return (
    !read.schema.indexLeadingColumns.includes(read.column) ||
    rows <= deps.settings.chunkRows * CHUNKS_PER_READ
  );
}

/**
 * How the twin's `rows` rows are read (see RowsReading): in slices when more
 * than one slice holds them, along a primary key that can be cut into slices
 * (sliceableKey); otherwise in one pass when they fit one (fitsOneRead), else
 * a day at a time.
 */
export function twinReading(
  deps: Pick<CleanupDeps, "settings">,
  read: RowsToRead,
  rows: number,
): RowsReading {
  if (rows > deps.settings.partitionSliceRows && sliceableKey(read.schema) !== undefined) return "slices";
  return fitsOneRead(deps, read, rows) ? "one pass" : "every day";
}

/**
 * The figures of slices of every row, CLEANUP_PARTITION_SLICE_ROWS a
 * statement along the primary key, each after the key the last ended on,
 * paced as deletes are (see paced), the pause between chunks once per
 * CLEANUP_CHUNK_ROWS rows hashed.
 */
async function* hashSlices(deps: CleanupDeps, read: RowsToRead): AsyncGenerator<PartitionDays> {
  const { partitionSliceRows: limit, chunkRows } = deps.settings;
  let cursor: { readonly after?: readonly string[]; readonly upTo?: readonly string[] | null } = {};
  for (let hashed = 0; ; hashed += limit) {
    const first = hashed === 0 || Math.floor(hashed / chunkRows) === Math.floor((hashed - limit) / chunkRows);
    const slice = await paced(read.throttle, first, () =>
      deps.partitions.sliceFigures(read.schema, read.column, read.rows, { ...cursor, limit }),
    );
    yield slice.figures;
    if (!slice.last) return;
    cursor = slice.next === undefined ? { after: slice.last } : { after: slice.last, upTo: slice.next };
  }
}

/**
 * The figures of each of `days`, a statement a day through the filter
 * column's index, or of every row in one statement (`undefined`), paced.
 */
async function* hashDays(
  deps: CleanupDeps,
  { schema, column, rows, throttle }: RowsToRead,
  days: readonly (CalendarDay | undefined)[],
): AsyncGenerator<PartitionDays> {
  for (const [i, day] of days.entries()) {
    yield await paced(throttle, i === 0, () => deps.partitions.dayFigures(schema, column, rows, day));
  }
}

/**
 * One read under the throttle, as a delete is: waited on before it (the
 * pause between chunks too, unless `first`), and told how long the read
 * kept the server busy, which the nice pace's rest follows from.
 */
async function paced<T>(throttle: Throttle | undefined, first: boolean, read: () => Promise<T>): Promise<T> {
  await throttle?.beforeChunk(first);
  const started = performance.now();
  const answer = await read();
  throttle?.afterChunk(performance.now() - started);
  return answer;
}

function refusalByCount(
  counts: { readonly days: ReadonlyMap<CalendarDay, unknown>; readonly outside: number },
  pending: ReadonlySet<CalendarDay>,
): string | undefined {
  if (counts.outside > 0) return `${counts.outside} rows have a NULL or zero date, which no day holds`;
  for (const day of [...counts.days.keys()].sort()) {
    if (!pending.has(day)) return `it holds rows of ${day}, which is not a migrated day waiting for cleanup`;
  }
  return undefined;
}
