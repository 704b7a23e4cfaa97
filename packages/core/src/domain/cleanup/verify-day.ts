import type { ReferencingKey } from "../../ports/day-deleter";
import type { CopiedDayRecord } from "../../ports/migration-ledger";
import type { CalendarDay } from "../days/calendar-day";
import { warehouseFigures } from "../records/held-copy";
import { type DayFigures, describeFigures, sameFigures } from "../types/day-figures";
import { integerKeyColumn, type TableSchema } from "../types/table-schema";
import type { CleanupDeps } from "./cleanup-deps";
import { chunkByOf } from "./plan-cleanup";
import { judgeReferences, type RefusedDay } from "./refusals";

/** What verification decided about one day. */
export type DayVerdict =
  /** Source, warehouse and copy record agree and the source still holds the rows: they may be deleted. */
  | { readonly kind: "ready"; readonly figures: DayFigures; readonly record: CopiedDayRecord }
  /** The source holds no rows of the day and the warehouse holds the full copy. */
  | { readonly kind: "already-clean"; readonly figures: DayFigures; readonly record: CopiedDayRecord }
  /** Something disagrees; the day must not be touched. `reason` names both figures. */
  | RefusedDay;

/** The three accounts of one day that verification compares. */
export interface DayEvidence {
  readonly table: string;
  readonly day: CalendarDay;
  readonly filterColumn: string;
  /** The single integer primary key; undefined means count-only verification. */
  readonly keyColumn: string | undefined;
  readonly record: CopiedDayRecord | undefined;
  readonly source: DayFigures;
  /** Undefined when there is no record to say where the copy went. */
  readonly warehouse: DayFigures | undefined;
}

/**
 * Decides whether a day may be deleted. Every figure must agree exactly:
 * rows, the content fingerprint of every column of every row (source now
 * against the copy record), and for a single integer key its count, sum, min
 * and max. Anything missing (no record, a record without a fingerprint or
 * without key figures for a keyed table, a record made with another filter
 * column) refuses the day: what cannot be checked is not deleted.
 */
export function judgeDay(evidence: DayEvidence): DayVerdict {
  const { record, source, warehouse, keyColumn } = evidence;
  const label = `${evidence.table} ${evidence.day}`;
  if (!record) {
    return {
      kind: "refused",
      category: "no-record",
      reason: `${label}: no copy record (figures) for this day`,
      source,
    };
  }
  const recorded = record.figures;
  if (record.filterColumn !== evidence.filterColumn) {
    return {
      kind: "refused",
      category: "no-record",
      reason: `${label}: copied by column "${record.filterColumn}", not "${evidence.filterColumn}"`,
      source,
      recorded,
    };
  }
  if (!warehouse)
    return {
      kind: "refused",
      category: "warehouse",
      reason: `${label}: warehouse figures unavailable`,
      source,
      recorded,
    };
  if (keyColumn) {
    const missing = [
      ["recorded", recorded],
      ["warehouse", warehouse],
      ["source", source],
    ].find(([, figures]) => (figures as DayFigures).key?.column !== keyColumn);
    if (missing) {
      return {
        kind: "refused",
        category: "other",
        reason: `${label}: the ${missing[0]} figures have no key figures for "${keyColumn}", so the day cannot be checked by key`,
        source,
        warehouse,
        recorded,
      };
    }
  }
  const figures = { source, warehouse, recorded };
  const all = `source ${describeFigures(source)}, warehouse ${describeFigures(warehouse)}, recorded at copy ${describeFigures(recorded)}`;
  if (!sameFigures(warehouse, recorded)) {
    return {
      kind: "refused",
      category: "warehouse",
      reason: `${label}: the warehouse no longer holds the copy: ${all}`,
      ...figures,
    };
  }
  if (source.rows === 0) return { kind: "already-clean", figures: recorded, record };
  if (recorded.fingerprint === undefined) {
    return {
      kind: "refused",
      category: "not-fingerprinted",
      reason:
        `${label}: copied before content fingerprints were recorded, so nothing proves its ${source.rows} source rows ` +
        'equal the copy; clean with "recopy_changed_days": true to copy the day again and then clean it',
      ...figures,
    };
  }
  if (!sameFigures(source, recorded) || source.fingerprint !== recorded.fingerprint) {
    return {
      kind: "refused",
      category: "changed",
      reason:
        `${label}: the source changed since the copy (${describeChange(source, recorded)}): ${all}; ` +
        'its rows are kept. Clean with "recopy_changed_days": true to copy the day again and then clean it',
      ...figures,
    };
  }
  return { kind: "ready", figures: recorded, record };
}

/** What differs between the source now and the copy, in the operator's words. */
export function describeChange(source: DayFigures, recorded: DayFigures): string {
  const diff = source.rows - recorded.rows;
  const rows = (n: number) => `${n} ${n === 1 ? "row" : "rows"}`;
  if (diff > 0) return `rows added: ${rows(diff)} more than copied`;
  if (diff < 0) return `rows gone: ${rows(-diff)} fewer than copied`;
  if (!sameFigures(source, recorded)) return "rows replaced: as many rows as copied, but other keys";
  return "rows changed: the same rows by count and key, but their content differs";
}

/**
 * Gathers the day's copy record (unless given), warehouse figures and source
 * figures, the three at once, and judges them; a day that passes is then
 * refused if rows of another table reference it. Reads only.
 */
export async function verifyDay(
  deps: Pick<CleanupDeps, "source" | "ledger" | "warehouse" | "destinations" | "deleter">,
  input: {
    readonly schema: TableSchema;
    readonly filterColumn: string;
    readonly day: CalendarDay;
    /**
     * The copy record when the caller has read it already; `null` when it
     * read none (a dry run, which must not have the ledger recover one).
     */
    readonly record?: CopiedDayRecord | null;
    /** The source's figures when the caller counts them its own way (from the chunks it will delete). */
    readonly source?: Promise<DayFigures>;
    /** Foreign keys that reference the table: a day referenced through any of them is refused. */
    readonly referencingKeys?: readonly ReferencingKey[];
  },
): Promise<DayVerdict> {
  const { schema, filterColumn, day } = input;
  const keyColumn = integerKeyColumn(schema)?.name;
  const readRecord =
    input.record !== undefined
      ? Promise.resolve(input.record ?? undefined)
      : deps.ledger.copiedDay(schema.name, day);
  const [record, source, warehouse] = await Promise.all([
    readRecord,
    input.source ?? deps.source.dayFigures(schema, filterColumn, day),
    readRecord.then((r) => (r ? warehouseFigures(deps, r, filterColumn, day, keyColumn) : undefined)),
  ]);
  if (warehouse instanceof Error) {
    return {
      kind: "refused",
      category: "warehouse",
      reason: `${schema.name} ${day}: ${warehouse.message}`,
      source,
      ...(record ? { recorded: record.figures } : {}),
    };
  }
  const verdict = judgeDay({ table: schema.name, day, filterColumn, keyColumn, record, source, warehouse });
  const keys = input.referencingKeys ?? [];
  if (verdict.kind !== "ready" || keys.length === 0) return verdict;
  const target = { scope: { table: schema.name, column: filterColumn, day }, schema, by: chunkByOf(schema) };
  const counts = await deps.deleter.countReferences(target, keys);
  return judgeReferences(`${schema.name} ${day}`, counts) ?? verdict;
}
