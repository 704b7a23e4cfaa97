import type { CopiedDayRecord } from "../../model/copied-day-record";
import type { CopyDayTask } from "../../model/task";
import type { CopyDayDeps } from "./copy-deps";
import { type CopyMode, type CopyTarget, readCopyFacts } from "./copy-facts";
import { dayBatches } from "./day-batches";
import { copiedDayRecord, decideCopy } from "./decide-copy";

export type { CopyDayDeps } from "./copy-deps";

/**
 * Copies one day: streams the day's rows from the source into the warehouse,
 * replacing the day there as a whole, checks the warehouse holds exactly the
 * rows read, and only then records the day: first in the warehouse's durable
 * day record, then in Redis (its figures, and the day in `mig_<table>`). Safe
 * to run again for the same day at any point: a day already recorded, in
 * Redis or (when Redis lost its data) in the durable record, is left as it
 * is, and a record found only in the durable record is written back to Redis.
 */
export function copyDay(deps: CopyDayDeps, task: CopyDayTask): Promise<CopiedDayRecord> {
  return copyCorridor(deps, task, "copy");
}

/**
 * Copies a day that is already recorded again, replacing its warehouse copy
 * and its record (cleanup's `recopy_changed_days`). Refused, changing
 * nothing, unless the new rows keep every row the warehouse holds of the day
 * (see keepHeldRows): a re-copy never drops a row that has left the source.
 */
export function recopyDay(deps: CopyDayDeps, task: CopyDayTask): Promise<CopiedDayRecord> {
  return copyCorridor(deps, task, "recopy");
}

/** The copy task in one line of steps: read its facts, decide (decideCopy), copy and record. */
async function copyCorridor(deps: CopyDayDeps, task: CopyDayTask, mode: CopyMode): Promise<CopiedDayRecord> {
  const started = performance.now();
  const facts = await readCopyFacts(deps, task, mode);
  const decision = decideCopy(facts);
  if (decision.kind === "refuse") throw decision.error;
  if (decision.kind === "recorded") {
    deps.logger.info("day already migrated; duplicate task ignored", { table: task.table, day: task.day });
    return decision.record;
  }
  const record = await copyAndRecord(deps, task, decision.target, started);
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

/**
 * Replaces the day in the warehouse with the source's and records it,
 * checked (copiedDayRecord) and recorded before the warehouse commits, where
 * it can (DuckDB): the durable record then holds the day exactly when the
 * warehouse does. Redis comes after it, so a day in Redis is always in the
 * durable record too, and a crash in between leaves a record that the next
 * copy task writes back to Redis.
 */
async function copyAndRecord(
  deps: CopyDayDeps,
  task: CopyDayTask,
  target: CopyTarget,
  started: number,
): Promise<CopiedDayRecord> {
  const warehouse = await deps.warehouse();
  const stream = dayBatches(deps, task, target, warehouse);
  await warehouse.ensureTable(target.at.destination, target.schema, target.at.filterColumn);
  let record: CopiedDayRecord | undefined;
  await warehouse.replaceDay(target.at, target.schema, stream.batches, target.key, async (written) => {
    record = copiedDayRecord(task, {
      read: stream.stats(),
      rowsWritten: written.rowsWritten,
      figures: written.figures ?? (await warehouse.dayFigures(target.at, target.key)),
      durationMs: Math.round(performance.now() - started),
      copiedAt: deps.clock().toISOString(),
    });
    return { kind: "copied", table: task.table, copy: record };
  });
  if (!record)
    throw new Error(`${task.table} ${task.day}: the warehouse replaced the day without recording it`);
  await deps.ledger.recordCopiedDay(task.table, record);
  return record;
}
