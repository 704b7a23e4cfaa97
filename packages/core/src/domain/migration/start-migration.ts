import type { CalendarDay } from "../../model/calendar-day";
import type { DestinationRules } from "../../model/destination";
import type { CopyDayTask } from "../../model/task";
import type { Clock } from "../../ports/clock";
import type { Logger } from "../../ports/logger";
import type { MigrationLedger } from "../../ports/migration-ledger";
import type { SourceDatabase } from "../../ports/source-database";
import type { TaskQueue } from "../../ports/task-queue";
import { cutoffDay } from "../days/cutoff-day";
import type { MigrationMessage } from "../messages/migration-message";
import { FIRST_DAY, planDays } from "./plan-days";
import { resolveTables } from "./resolve-tables";

export interface StartMigrationDeps {
  readonly source: SourceDatabase;
  readonly queue: TaskQueue;
  readonly ledger: MigrationLedger;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly timeZone: string;
  readonly destinations: DestinationRules;
}

export interface TablePlan {
  readonly table: string;
  /** The destination the message names, as written. */
  readonly destination: string;
  readonly cutoff: CalendarDay;
  readonly days: readonly CalendarDay[];
  readonly added: number;
  readonly alreadyQueued: number;
  /**
   * Days of the message's range already migrated to another destination than
   * the one it names (so not planned again), and those destinations as their
   * copies recorded them; 0 and [] when none.
   */
  readonly migratedElsewhere: number;
  readonly otherDestinations: readonly string[];
  readonly planMs: number;
}

/**
 * Migration mode: validates every table, then plans and enqueues, per table,
 * the oldest days before the cutoff that are neither migrated nor queued, at
 * most `tasks_enqueued_limit` of them. Deletes nothing.
 */
export async function startMigration(
  deps: StartMigrationDeps,
  message: MigrationMessage,
): Promise<TablePlan[]> {
  const tables = await resolveTables(deps.source, message, deps.destinations);
  const cutoff = cutoffDay(deps.clock(), deps.timeZone, message.years_to_migrate, message.months_to_migrate);
  const from = message.min_date_limit_iso?.slice(0, 10) ?? FIRST_DAY;
  const plans: TablePlan[] = [];
  for (const table of tables) {
    const name = table.schema.name;
    if (!table.schema.indexLeadingColumns.includes(table.filterColumn)) {
      deps.logger.warn("filter column leads no index; planning and copying will scan the table", {
        table: name,
        column: table.filterColumn,
      });
    }
    const started = performance.now();
    const [migrated, queued] = await Promise.all([
      deps.ledger.migratedDays(name),
      deps.queue.queuedDays("copy", name),
    ]);
    const days = await planDays(deps.source, {
      table: name,
      column: table.filterColumn,
      from,
      before: cutoff,
      limit: message.tasks_enqueued_limit,
      exclude: new Set([...migrated, ...queued]),
    });
    const elsewhere = await migratedElsewhere(deps, name, table.destinationName, migrated, from, cutoff);
    const planMs = performance.now() - started;
    const tasks = days.map(
      (day): CopyDayTask => ({
        kind: "copy",
        table: name,
        destination: table.destinationName,
        filterColumn: table.filterColumn,
        day,
        ...(message.max_rows_per_second ? { maxRowsPerSecond: message.max_rows_per_second } : {}),
      }),
    );
    const result = await deps.queue.enqueue(tasks);
    deps.logger.info("planned migration days", {
      table: name,
      cutoff,
      from,
      days: days.length,
      firstDay: days[0],
      lastDay: days.at(-1),
      enqueued: result.added,
      alreadyQueued: result.alreadyQueued,
      migratedBefore: migrated.length,
      ...(elsewhere.days > 0
        ? { migratedElsewhere: elsewhere.days, otherDestinations: elsewhere.destinations }
        : {}),
      planMs: Math.round(planMs * 10) / 10,
    });
    plans.push({
      table: name,
      destination: table.destinationName,
      cutoff,
      days,
      ...result,
      migratedElsewhere: elsewhere.days,
      otherDestinations: elsewhere.destinations,
      planMs,
    });
  }
  return plans;
}

/**
 * Of the migrated days in [from, before), those whose copy went to another
 * destination than `destination`: a message naming a new destination plans
 * none of them again (each day is copied once), and says so rather than
 * leave the operator with "0 days enqueued". Names are compared as written,
 * without case; one read of the copy records.
 */
async function migratedElsewhere(
  deps: StartMigrationDeps,
  table: string,
  destination: string,
  migrated: readonly CalendarDay[],
  from: CalendarDay,
  before: CalendarDay,
): Promise<{ days: number; destinations: string[] }> {
  const inRange = migrated.filter((day) => day >= from && day < before);
  if (inRange.length === 0) return { days: 0, destinations: [] };
  const records = await deps.ledger.copiedDays(table, inRange);
  const wanted = sameDestination(destination, deps.destinations);
  let days = 0;
  const destinations = new Set<string>();
  for (const record of records.values()) {
    if (wanted(record.destination)) continue;
    days++;
    destinations.add(record.destination);
  }
  return { days, destinations: [...destinations].sort() };
}

/** Whether a recorded destination names the same table as `destination` (`t` is `<default dataset>.t`). */
function sameDestination(destination: string, rules: DestinationRules): (other: string) => boolean {
  const key = (name: string) => {
    const parts = name.toLowerCase().split(".");
    return parts.length === 1 ? `${rules.defaultDataset.toLowerCase()}.${parts[0]}` : parts.join(".");
  };
  const wanted = key(destination);
  return (other) => key(other) === wanted;
}
