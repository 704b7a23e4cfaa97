import type { CalendarDay } from "../../model/calendar-day";
import type { CopiedDayRecord } from "../../model/copied-day-record";
import { type DayFigures, describeFigures, sameFigures } from "../../model/day-figures";
import { type Refusal, refuse } from "./refusal";

// Verification's rules: whether a day's source rows, its warehouse copy and its copy record agree,
// judged from figures alone (verifyDay gathers them).

/** What verification decided about one day. */
export type DayVerdict =
  /** Source, warehouse and copy record agree and the source still holds the rows: they may be deleted. */
  | { readonly kind: "ready"; readonly figures: DayFigures; readonly record: CopiedDayRecord }
  /** The source holds no rows of the day and the warehouse holds the full copy. */
  | { readonly kind: "already-clean"; readonly figures: DayFigures; readonly record: CopiedDayRecord }
  /** Something disagrees; the day must not be touched. `reason` names both figures. */
  | Refusal;

/** The three accounts of one day that verification compares. */
export interface DayEvidence {
  readonly table: string;
  readonly day: CalendarDay;
  readonly filterColumn: string;
  /** The single integer primary key; undefined means count-only verification. */
  readonly keyColumn: string | undefined;
  readonly record: CopiedDayRecord | undefined;
  readonly source: DayFigures;
  /** Undefined when no record says where the copy went; an Error when that copy could not be read. */
  readonly warehouse: DayFigures | Error | undefined;
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
  const sourceAndRecorded = { source, ...(record ? { recorded: record.figures } : {}) };
  if (warehouse instanceof Error)
    return refuse("warehouse", `${label}: ${warehouse.message}`, sourceAndRecorded);
  const unvouched = copyRecordProblem(record, evidence.filterColumn);
  if (!record || unvouched) return refuse("no-record", `${label}: ${unvouched}`, sourceAndRecorded);
  const recorded = record.figures;
  if (!warehouse) return refuse("warehouse", `${label}: warehouse figures unavailable`, { source, recorded });
  const figures = { source, warehouse, recorded };
  const unkeyed =
    keyColumn &&
    (["recorded", "warehouse", "source"] as const).find((name) => figures[name].key?.column !== keyColumn);
  if (unkeyed) {
    return refuse(
      "other",
      `${label}: the ${unkeyed} figures have no key figures for "${keyColumn}", so the day cannot be checked by key`,
      figures,
    );
  }
  const all = `source ${describeFigures(source)}, warehouse ${describeFigures(warehouse)}, recorded at copy ${describeFigures(recorded)}`;
  if (!sameFigures(warehouse, recorded)) {
    return refuse("warehouse", `${label}: the warehouse no longer holds the copy: ${all}`, figures);
  }
  if (source.rows === 0) return { kind: "already-clean", figures: recorded, record };
  if (recorded.fingerprint === undefined) {
    return refuse(
      "not-fingerprinted",
      `${label}: copied before content fingerprints were recorded, so nothing proves its ${source.rows} source rows ` +
        'equal the copy; clean with "recopy_changed_days": true to copy the day again and then clean it',
      figures,
    );
  }
  if (!sameFigures(source, recorded) || source.fingerprint !== recorded.fingerprint) {
    return refuse(
      "changed",
      `${label}: the source changed since the copy (${describeChange(source, recorded)}): ${all}; ` +
        'its rows are kept. Clean with "recopy_changed_days": true to copy the day again and then clean it',
      figures,
    );
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

/** Why a day's copy record cannot vouch for cleaning it by `column`: there is none, or it was copied by another. */
export function copyRecordProblem(record: CopiedDayRecord | undefined, column: string): string | undefined {
  if (!record) return "no copy record for the day";
  if (record.filterColumn !== column) return `copied by column "${record.filterColumn}", not "${column}"`;
  return undefined;
}
