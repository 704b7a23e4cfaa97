import { setTimeout as sleep } from "node:timers/promises";
import { InvalidInputError, RefusalError } from "../../errors";
import type { CopiedDayRecord } from "../../model/copied-day-record";
import { describeFigures } from "../../model/day-figures";
import { type DestinationRules, parseDestination } from "../../model/destination";
import { integerKeyColumn } from "../../model/table-schema";
import type { CopyDayTask } from "../../model/task";
import type { WarehouseDay } from "../../model/warehouse-day";
import type { Clock } from "../../ports/clock";
import type { Logger } from "../../ports/logger";
import type { MigrationLedger } from "../../ports/migration-ledger";
import type { RateCap } from "../../ports/rate-cap";
import type { SourceDatabase } from "../../ports/source-database";
import type { Warehouse } from "../../ports/warehouse";
import { todayIn } from "../days/cutoff-day";
import { createNicePace, paceBatches } from "../pacing/nice-pace";
import { capBatches, cappedRows, rateCapPace } from "../pacing/rate-cap-pace";
import { describeSourceTable, TASK_FIELDS } from "../source-table";
import { keepHeldRows } from "./keep-held-rows";

export interface CopyDayDeps {
  readonly source: SourceDatabase;
  /** Opened on first use: a duplicate task for a migrated day never needs it. */
  readonly warehouse: () => Promise<Warehouse>;
  readonly ledger: MigrationLedger;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly timeZone: string;
  readonly destinations: DestinationRules;
  readonly batchRows: number;
  /** Rest per unit of the source's read time (COPY_NICE_RATIO); 0 or absent reads at full speed. */
  readonly niceRatio?: number;
  /** The table-wide rate cap's shared budget (max_rows_per_second, COPY_MAX_ROWS_PER_SECOND); absent, nothing is capped. */
  readonly rateCap?: RateCap;
  /** COPY_MAX_ROWS_PER_SECOND: rows copied per second for a table across every task; 0 or absent caps nothing. */
  readonly maxRowsPerSecond?: number;
  /** Waits for the pace; tests pass a fake. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * Copies one day: streams the day's rows from the source into the warehouse,
 * replacing the day there as a whole, checks the warehouse holds exactly the
 * rows read, and only then records the day: first in the warehouse's durable
 * day record, then in Redis (its figures, and the day in `mig_<table>`). Safe
 * to run again for the same day at any point: a day already recorded, in
 * Redis or (when Redis lost its data) in the durable record, is left as it
 * is, and a record found only in the durable record is written back to Redis.
 */
export async function copyDay(deps: CopyDayDeps, task: CopyDayTask): Promise<CopiedDayRecord> {
  const today = todayIn(deps.clock(), deps.timeZone);
  if (task.day >= today) {
    throw new InvalidInputError(
      "day",
      `${task.day} is not a whole past day (today is ${today} in ${deps.timeZone})`,
    );
  }
  const recorded = await deps.ledger.copiedDay(task.table, task.day, { destination: task.destination });
  if (recorded) {
    // The planner never queues a migrated day, so this is a duplicate delivery or a retry after the
    // record was written. Copying again could replace the warehouse's day with what cleanup left of
    // the source's: the copy that was verified and recorded stands.
    deps.logger.info("day already migrated; duplicate task ignored", { table: task.table, day: task.day });
    return recorded;
  }
  return copyAndRecord(deps, task);
}

/**
 * Copies a day that is already recorded again, replacing its warehouse copy
 * and its record (cleanup's `recopy_changed_days`). Refused, changing
 * nothing, unless the new rows keep every row the warehouse holds of the day
 * (see keepHeldRows): a re-copy never drops a row that has left the source.
 */
export function recopyDay(deps: CopyDayDeps, task: CopyDayTask): Promise<CopiedDayRecord> {
  return copyAndRecord(deps, task, { keepHeldRows: true });
}

async function copyAndRecord(
  deps: CopyDayDeps,
  task: CopyDayTask,
  options: { readonly keepHeldRows?: boolean } = {},
): Promise<CopiedDayRecord> {
  const started = performance.now();
  const schema = await describeSourceTable(deps.source, task.table, task.filterColumn, TASK_FIELDS);
  const destination = parseDestination(task.destination, deps.destinations);

  const warehouse = await deps.warehouse();
  await warehouse.ensureTable(destination, schema, task.filterColumn);
  const perSecond = task.maxRowsPerSecond ?? (deps.maxRowsPerSecond || undefined);
  const key = integerKeyColumn(schema)?.name;
  // A re-copy compares the rows with the warehouse's keys in key order (keepHeldRows); a copy needs no order.
  const inKeyOrder = options.keepHeldRows === true && key !== undefined;
  const stream = deps.source.streamDay(
    schema,
    task.filterColumn,
    task.day,
    cappedRows(deps.batchRows, perSecond),
    inKeyOrder ? { inKeyOrder } : undefined,
  );
  const wait = deps.sleep ?? ((ms: number) => sleep(ms));
  const pace = createNicePace({ ratio: deps.niceRatio ?? 0, sleep: wait });
  const capped = rateCapPace(deps.rateCap, `copy:${task.table}`, perSecond, wait);
  const batches = capBatches(paceBatches(stream.batches, pace), capped);
  const at: WarehouseDay = { destination, filterColumn: task.filterColumn, day: task.day };
  let record: CopiedDayRecord | undefined;
  // Checked and recorded before the warehouse commits, where it can (DuckDB): the durable record
  // then holds the day exactly when the warehouse does. Redis comes after it, so a day in Redis is
  // always in the durable record too, and a crash in between leaves a record that the next copy
  // task writes back to Redis.
  await warehouse.replaceDay(
    at,
    schema,
    options.keepHeldRows ? keepHeldRows(warehouse, at, schema, batches) : batches,
    key,
    async ({ rowsWritten, figures: counted }) => {
      const read = stream.stats();
      const figures = counted ?? (await warehouse.dayFigures(at, key));
      if (
        rowsWritten !== read.rows ||
        figures.rows !== read.rows ||
        (figures.key && figures.key.count !== read.rows)
      ) {
        throw new RefusalError(
          `${task.table} ${task.day}: read ${read.rows} rows from the source but the warehouse holds ${describeFigures(figures)}`,
        );
      }
      record = {
        day: task.day,
        destination: task.destination,
        filterColumn: task.filterColumn,
        figures: { ...figures, fingerprint: read.fingerprint },
        zeroDates: read.zeroDates,
        bytes: read.bytes,
        durationMs: Math.round(performance.now() - started),
        copiedAt: deps.clock().toISOString(),
      };
      return { kind: "copied", table: task.table, copy: record };
    },
  );
  if (!record)
    throw new Error(`${task.table} ${task.day}: the warehouse replaced the day without recording it`);
  await deps.ledger.recordCopiedDay(task.table, record);
  deps.logger.info("copied day", {
    table: task.table,
    day: task.day,
    destination: task.destination,
    rows: record.figures.rows,
    bytes: record.bytes,
    zeroDates: record.zeroDates,
    durationMs: record.durationMs,
  });
  return record;
}
