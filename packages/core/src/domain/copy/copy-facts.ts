import type { CalendarDay } from "../../model/calendar-day";
import type { CopiedDayRecord } from "../../model/copied-day-record";
import { parseDestination } from "../../model/destination";
import { integerKeyColumn, type TableSchema } from "../../model/table-schema";
import type { CopyDayTask } from "../../model/task";
import type { WarehouseDay } from "../../model/warehouse-day";
import { todayIn } from "../days/cutoff-day";
import { describeSourceTable, TASK_FIELDS } from "../source-table";
import type { CopyDayDeps } from "./copy-deps";

/** A first copy of a day (copyDay), or a re-copy of a recorded one that keeps its held rows (recopyDay). */
export type CopyMode = "copy" | "recopy";

/** Everything a copy task decides its day by (decideCopy). */
export interface CopyFacts {
  readonly task: CopyDayTask;
  readonly mode: CopyMode;
  /** Today in ARCHIVER_TIMEZONE: a copy takes only whole past days. */
  readonly today: CalendarDay;
  readonly timeZone: string;
  /** The day's copy record, when a first copy finds the day recorded (the ledger recovers one Redis lost). */
  readonly recorded: CopiedDayRecord | undefined;
  /** What the copy works with: read only for a day it will copy. */
  readonly target: CopyTarget | undefined;
}

/** The table as described now, where its day goes, and how the day is read. */
export interface CopyTarget {
  readonly schema: TableSchema;
  readonly at: WarehouseDay;
  /** The table's single integer key (integerKeyColumn), counted and compared by key; absent, by rows alone. */
  readonly key: string | undefined;
  /** The table's rate cap (the task's, else COPY_MAX_ROWS_PER_SECOND); undefined caps nothing. */
  readonly maxRowsPerSecond: number | undefined;
  /** A re-copy keeps every key the warehouse holds of the day (keepHeldRows), reading in key order. */
  readonly keepHeldRows: boolean;
}

/**
 * Reads the day's facts, each only when the day needs it: the ledger for a
 * whole past day of a first copy (a re-copy replaces the record it finds),
 * then the table's description and destination for a day that is not
 * recorded. A duplicate task for a recorded day reads nothing more.
 */
export async function readCopyFacts(
  deps: CopyDayDeps,
  task: CopyDayTask,
  mode: CopyMode,
): Promise<CopyFacts> {
  const today = todayIn(deps.clock(), deps.timeZone);
  const past = mode === "recopy" || task.day < today;
  const recorded =
    past && mode === "copy"
      ? await deps.ledger.copiedDay(task.table, task.day, { destination: task.destination })
      : undefined;
  if (!past || recorded) return { task, mode, today, timeZone: deps.timeZone, recorded, target: undefined };
  const schema = await describeSourceTable(deps.source, task.table, task.filterColumn, TASK_FIELDS);
  const destination = parseDestination(task.destination, deps.destinations);
  const key = integerKeyColumn(schema)?.name;
  const target: CopyTarget = {
    schema,
    at: { destination, filterColumn: task.filterColumn, day: task.day },
    key,
    maxRowsPerSecond: task.maxRowsPerSecond ?? (deps.maxRowsPerSecond || undefined),
    keepHeldRows: mode === "recopy" && key !== undefined,
  };
  return { task, mode, today, timeZone: deps.timeZone, recorded, target };
}
