import type { Clock } from "../../ports/clock";
import type { Logger } from "../../ports/logger";
import type { MigrationLedger } from "../../ports/migration-ledger";
import type { SourceDatabase } from "../../ports/source-database";
import type { TaskQueue } from "../../ports/task-queue";
import type { CalendarDay } from "../days/calendar-day";
import { cutoffDay } from "../days/cutoff-day";
import type { MigrationMessage } from "../messages/migration-message";
import type { CopyDayTask } from "../tasks/task-payload";
import { FIRST_DAY, planDays } from "./plan-days";
import { type DestinationRules, resolveTables } from "./resolve-tables";

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
  readonly cutoff: CalendarDay;
  readonly days: readonly CalendarDay[];
  readonly added: number;
  readonly alreadyQueued: number;
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
    const planMs = performance.now() - started;
    const tasks = days.map(
      (day): CopyDayTask => ({
        kind: "copy",
        table: name,
        destination: table.destinationName,
        filterColumn: table.filterColumn,
        day,
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
      planMs: Math.round(planMs * 10) / 10,
    });
    plans.push({ table: name, cutoff, days, ...result, planMs });
  }
  return plans;
}
