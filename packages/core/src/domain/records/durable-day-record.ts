import type { CalendarDay } from "../../model/calendar-day";
import type { CopiedDayRecord } from "../../model/copied-day-record";
import type { DestinationRules } from "../../model/destination";
import { parseDestination } from "../../model/destination";
import type { DatasetRef } from "../../ports/day-record";
import type { Logger } from "../../ports/logger";
import type { MigrationLedger } from "../../ports/migration-ledger";
import type { Warehouse } from "../../ports/warehouse";
import { warehouseHoldsCopy } from "./held-copy";

/** What reading and restoring the durable day record needs. */
export interface DurableRecordDeps {
  readonly warehouse: () => Promise<Warehouse>;
  readonly ledger: MigrationLedger;
  readonly logger: Logger;
  readonly destinations: DestinationRules;
}

/** The dataset of a destination name (`t`, `d.t` or `p.d.t`); the default dataset when none is given. */
export function datasetOf(rules: DestinationRules, destination: string | undefined): DatasetRef {
  if (destination === undefined) return { dataset: rules.defaultDataset };
  const { project, dataset } = parseDestination(destination, rules);
  return project ? { project, dataset } : { dataset };
}

/**
 * The day's copy record when Redis has none: read from the warehouse's
 * durable record and written back to Redis (record and `mig_<table>`
 * membership), as the copy itself would have. Undefined when the warehouse
 * has no record of the day either, or no longer holds the copy it records
 * (its table was dropped, say): such a day is copied again, and the rule
 * that a copy never shrinks a warehouse day still guards it.
 */
async function restoreCopyRecord(
  deps: DurableRecordDeps,
  at: DatasetRef,
  table: string,
  day: CalendarDay,
): Promise<CopiedDayRecord | undefined> {
  const warehouse = await deps.warehouse();
  const { copy } = await warehouse.dayRecord(at, table, day);
  if (!copy) return undefined;
  if (!(await warehouseHoldsCopy(deps, copy))) {
    deps.logger.warn("the durable record names a copy the warehouse no longer holds; not restored", {
      table,
      day,
      dataset: at.dataset,
      recordedRows: copy.figures.rows,
    });
    return undefined;
  }
  await deps.ledger.recordCopiedDay(table, copy);
  deps.logger.warn("restored a day's copy record from the warehouse's durable record (Redis had none)", {
    table,
    day,
    dataset: at.dataset,
    copiedAt: copy.copiedAt,
  });
  return copy;
}

/**
 * Writes every day the durable record holds for `table` back to Redis where
 * Redis lacks it: its copy record and its membership in `mig_<table>`.
 * Returns the days written back.
 */
export async function rebuildMigratedDays(
  deps: DurableRecordDeps,
  at: DatasetRef,
  table: string,
): Promise<CalendarDay[]> {
  const warehouse = await deps.warehouse();
  const copies = await warehouse.recordedCopies(at, table);
  if (copies.length === 0) return [];
  const days = copies.map((copy) => copy.day);
  const held = await deps.ledger.copiedDays(table, days);
  const migrated = new Set(await deps.ledger.migratedDays(table));
  const restored: CalendarDay[] = [];
  for (const copy of copies) {
    const kept = held.get(copy.day);
    if (kept && migrated.has(copy.day) && kept.copiedAt >= copy.copiedAt) continue;
    await deps.ledger.recordCopiedDay(table, copy);
    restored.push(copy.day);
  }
  return restored;
}

/** `rebuildMigratedDays` for every source table the durable record of `at` holds, in name order. */
export async function rebuildAllMigratedDays(
  deps: DurableRecordDeps,
  at: DatasetRef,
): Promise<{ readonly table: string; readonly restored: CalendarDay[] }[]> {
  const warehouse = await deps.warehouse();
  const rebuilt = [];
  for (const table of await warehouse.recordedTables(at)) {
    rebuilt.push({ table, restored: await rebuildMigratedDays(deps, at, table) });
  }
  return rebuilt;
}

/**
 * The migration ledger as copy and cleanup read it: Redis first, and, for a
 * day Redis has no record of (it lost its data), the warehouse's durable
 * record, written back to Redis as the copy would have (restoreCopyRecord),
 * from the dataset of `where.destination` or else the default dataset. So the
 * domain never restores a record itself. Every other method is the ledger's
 * own; the bulk reads (`copiedDays`, `migratedDays`) never restore: a whole
 * table comes back with `archiver status --rebuild` or the reader's rebuild.
 */
export function withDurableRecord(
  ledger: MigrationLedger,
  deps: Omit<DurableRecordDeps, "ledger">,
): MigrationLedger {
  const durable = { ...deps, ledger };
  // One restore per day at a time: a task asks for the record and for the membership at once.
  const restoring = new Map<string, Promise<CopiedDayRecord | undefined>>();
  const restore = (table: string, day: CalendarDay, destination: string | undefined) => {
    const key = `${table}\n${day}\n${destination ?? ""}`;
    let pending = restoring.get(key);
    if (!pending) {
      pending = restoreCopyRecord(durable, datasetOf(deps.destinations, destination), table, day).finally(
        () => restoring.delete(key),
      );
      restoring.set(key, pending);
    }
    return pending;
  };
  const copiedDay: MigrationLedger["copiedDay"] = async (table, day, where) =>
    (await ledger.copiedDay(table, day)) ?? restore(table, day, where?.destination);
  return {
    migratedDays: (table) => ledger.migratedDays(table),
    isMigrated: async (table, day) =>
      (await ledger.isMigrated(table, day)) || (await copiedDay(table, day)) !== undefined,
    recordCopiedDay: (table, record) => ledger.recordCopiedDay(table, record),
    copiedDay,
    copiedDays: (table, days) => ledger.copiedDays(table, days),
    tables: () => ledger.tables(),
  };
}
