import type { CalendarDay } from "../../../model/calendar-day";
import type { CopiedDayRecord } from "../../../model/copied-day-record";
import type { ChunkTarget } from "../../../model/day-chunks";
import type { DayCleanup } from "../../../model/day-cleanup";
import type { CleanDayTask } from "../../../model/task";
import type { DeleteSideEffects } from "../../../ports/day-deleter";
import { taskAccessRefusal } from "../../access/task-access";
import { todayIn } from "../../days/cutoff-day";
import { cappedRows } from "../../pacing/rate-cap-pace";
import { warehouseHoldsCopy } from "../../records/held-copy";
import { describeSourceTable, TASK_FIELDS } from "../../source-table";
import type { CleanupDeps } from "../cleanup-deps";
import { type Refusal, refusalError } from "../refusal";
import { chunkByOf, copyVouches } from "./plan-chunks";

/** Everything a cleanup task decides its day by, read in one round. */
export interface DayFacts {
  readonly task: CleanDayTask;
  /** The day, the table as described now, and what its chunks are ranges of. */
  readonly target: ChunkTarget;
  /** The day's cleanup state: none, `verified`, `deleting` or `done`. */
  readonly state: DayCleanup | undefined;
  /** Whether the day is in `mig_<table>`. */
  readonly migrated: boolean;
  /** The day's copy record (the ledger recovers one Redis lost: withDurableRecord). */
  readonly record: CopiedDayRecord | undefined;
  /**
   * For a day not begun whose copy record can plan it (copyVouches): whether
   * the warehouse still holds exactly that copy. False for every other day.
   */
  readonly held: boolean;
  /** For a day recorded `done`: how many rows of it the source holds now. */
  readonly rowsNow: number | undefined;
  /** What this task's account lacks of what cleaning the table relies on (taskAccessRefusal), if anything. */
  readonly access: Refusal | undefined;
  /** Foreign keys that reference the table and its DELETE triggers. */
  readonly sideEffects: DeleteSideEffects;
  /** Now, by the deps' clock, and today in ARCHIVER_TIMEZONE (the retention floor counts from it). */
  readonly now: Date;
  readonly today: CalendarDay;
  /** The table's rate cap (the task's, else CLEANUP_MAX_ROWS_PER_SECOND); undefined caps nothing. */
  readonly maxRowsPerSecond: number | undefined;
  /** Rows per planned chunk: CLEANUP_CHUNK_ROWS, or fewer under a rate cap (cappedRows). */
  readonly chunkRows: number;
  /** The deployment's retention floor (MIN_RETENTION_DAYS). */
  readonly minRetentionDays: number;
}

/**
 * Reads the day's facts, each a round trip, asked at once; `held` and
 * `rowsNow` as soon as what they depend on answers, and only for the days
 * that need them (a by-copy delete needs the warehouse first; rows that
 * arrived since a day was done must not count as clean). When a read fails
 * and the account is short of a privilege, the task ends with the account's
 * refusal rather than that read's error.
 */
export async function readDayFacts(deps: CleanupDeps, task: CleanDayTask): Promise<DayFacts> {
  const scope = { table: task.table, column: task.filterColumn, day: task.day };
  const maxRowsPerSecond = task.maxRowsPerSecond ?? (deps.settings.maxRowsPerSecond || undefined);
  const chunkRows = cappedRows(deps.settings.chunkRows, maxRowsPerSecond);
  const schema = describeSourceTable(deps.source, task.table, task.filterColumn, TASK_FIELDS);
  const state = deps.state.read(scope);
  const record = deps.ledger.copiedDay(scope.table, scope.day);
  const access = taskAccessRefusal(deps, scope.table);
  const [accessRefusal, described, existing, migrated, copied, held, rowsNow, sideEffects] =
    await Promise.all([
      access,
      schema,
      state,
      deps.ledger.isMigrated(scope.table, scope.day),
      record,
      Promise.all([state, record]).then(([existing, copy]) =>
        existing?.status !== "done" &&
        existing?.status !== "deleting" &&
        copy !== undefined &&
        copyVouches(copy, scope.column, chunkRows)
          ? warehouseHoldsCopy(deps, copy)
          : false,
      ),
      Promise.all([state, schema]).then(async ([existing, table]) =>
        existing?.status === "done"
          ? (await deps.source.dayFigures(table, scope.column, scope.day)).rows
          : undefined,
      ),
      deps.deleter.sideEffects(scope.table),
    ]).catch(async (error: unknown) => {
      const short = await access.catch(() => undefined);
      throw short ? refusalError(short) : error;
    });
  return {
    task,
    target: { scope, schema: described, by: chunkByOf(described) },
    state: existing,
    migrated,
    record: copied,
    held,
    rowsNow,
    access: accessRefusal,
    sideEffects,
    now: deps.clock(),
    today: todayIn(deps.clock(), deps.timeZone),
    maxRowsPerSecond,
    chunkRows,
    minRetentionDays: deps.settings.minRetentionDays,
  };
}
