import type { CalendarDay } from "../../model/calendar-day";
import type { CopiedDayRecord } from "../../model/copied-day-record";
import type { DayFigures } from "../../model/day-figures";
import type { DestinationRules } from "../../model/destination";
import type { TableDay } from "../../model/table-day";
import type { CopyDayTask } from "../../model/task";
import type { AccountCheck } from "../../ports/access-check";
import type { CleanupState } from "../../ports/cleanup-state";
import type { Clock } from "../../ports/clock";
import type { DayDeleter } from "../../ports/day-deleter";
import type { LoadProbe } from "../../ports/load-probe";
import type { Logger } from "../../ports/logger";
import type { MigrationLedger } from "../../ports/migration-ledger";
import type { PartitionedTable } from "../../ports/partitioned-table";
import type { RateCap } from "../../ports/rate-cap";
import type { SourceDatabase } from "../../ports/source-database";
import type { TaskQueue } from "../../ports/task-queue";
import type { Warehouse } from "../../ports/warehouse";
import type { ThrottleMemory } from "../pacing/throttle-memory";
import type { CleanupSettings } from "./cleanup-settings";

/** Everything cleanup mode (`startCleanup`) and a cleanup task (`cleanDay`) use. */
export interface CleanupDeps {
  readonly source: SourceDatabase;
  /** What the source's account may do: proven before a cleanup plans anything. */
  readonly account: AccountCheck;
  readonly deleter: DayDeleter;
  /** Empties whole partitions of a range-partitioned table (see cleanPartition). */
  readonly partitions: PartitionedTable;
  readonly loadProbe: LoadProbe;
  /** Opened on first use: a cleanup message only asks it whether its tables exist. */
  readonly warehouse: () => Promise<Warehouse>;
  /** Where the warehouse is, in the operator's words (which file or project, which variables say so). */
  readonly warehouseLabel: string;
  readonly ledger: MigrationLedger;
  readonly state: CleanupState;
  readonly queue: TaskQueue;
  readonly logger: Logger;
  readonly clock: Clock;
  /** ARCHIVER_TIMEZONE: the zone of "today" for the retention floor, and of a message's window without one. */
  readonly timeZone: string;
  /** How recorded destination names resolve (the default dataset), as when the day was copied. */
  readonly destinations: DestinationRules;
  readonly settings: CleanupSettings;
  /** Copies a recorded day again (recopyDay with the migration's own deps), for `recopy_changed_days`. */
  readonly recopy: (task: CopyDayTask) => Promise<CopiedDayRecord>;
  /**
   * What the throttle learns across the days this process cleans (the pace's
   * rest, the lag forecast, the redo steps); absent, each task starts afresh.
   */
  readonly throttleMemory?: ThrottleMemory;
  /** The table-wide rate cap's shared budget (max_rows_per_second, CLEANUP_MAX_ROWS_PER_SECOND); absent, nothing is capped. */
  readonly rateCap?: RateCap;
  /** Waits between chunks and while throttled; tests pass a fake. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** Records the day `done` now, by the deps' clock; `figures`, when known, are what the day held. */
export function markDayDone(
  deps: Pick<CleanupDeps, "state" | "clock">,
  at: TableDay,
  done: {
    readonly rowsDeleted: number;
    readonly chunksDone: number;
    readonly figures?: DayFigures | undefined;
  },
): Promise<void> {
  const { figures, ...counts } = done;
  return deps.state.markDone(at, {
    ...counts,
    doneAt: deps.clock().toISOString(),
    ...(figures ? { figures } : {}),
  });
}

/** The table's migrated days that are not cleaned yet, oldest first, and how many days are migrated. */
export async function pendingDays(
  deps: Pick<CleanupDeps, "ledger" | "state">,
  table: string,
): Promise<{ readonly pending: CalendarDay[]; readonly migrated: number }> {
  const [migrated, cleaned] = await Promise.all([
    deps.ledger.migratedDays(table),
    deps.state.cleanedDays(table),
  ]);
  const done = new Set(cleaned);
  return { pending: [...migrated].filter((day) => !done.has(day)).sort(), migrated: migrated.length };
}
