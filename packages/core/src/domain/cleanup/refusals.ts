import { type RefusalReason, VerificationError } from "../../errors";
import type { CalendarDay } from "../../model/calendar-day";
import type { CopiedDayRecord } from "../../model/copied-day-record";
import type { ChunkPlan, CleanupPlan, DayChunk, KeyRange } from "../../model/day-chunks";
import type { DayCleanup } from "../../model/day-cleanup";
import { type DayFigures, describeFigures, sameFigures } from "../../model/day-figures";
import type { DayScope } from "../../model/table-day";
import type { TableSchema } from "../../model/table-schema";
import type { CleanDayTask } from "../../model/task";
import type { ChunkOutcome, DeleteSideEffects, ReferenceCount } from "../../ports/day-deleter";
import type { CleanupDeps } from "./cleanup-deps";

// Every way cleanup refuses a day, and its wording: a refused day keeps its rows. Verification's
// rules are judgeDay's (verifyDay gathers what it judges). A refusal is a RefusedDay while a day is
// judged (verification, the dry run), a DayRefusal in a cleanup's summary, and a VerificationError
// (refusalError) where a task stops; `refusal` is always one of RefusalReason, for summaries, and
// `reason` the operator's sentence.

/** Verification's refusal of a day: its reason, its kind, and the figures that disagree. */
export interface RefusedDay {
  readonly kind: "refused";
  readonly reason: string;
  /** The kind of refusal, for summaries (a DayRefusal's `refusal`, a VerificationError's `reason`). */
  readonly refusal: RefusalReason;
  readonly source?: DayFigures;
  readonly warehouse?: DayFigures;
  readonly recorded?: DayFigures;
}

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
  const unvouched = copyRecordProblem(record, evidence.filterColumn);
  if (!record || unvouched) {
    return {
      kind: "refused",
      refusal: "no-record",
      reason: `${label}: ${unvouched}`,
      source,
      ...(record ? { recorded: record.figures } : {}),
    };
  }
  const recorded = record.figures;
  if (!warehouse)
    return {
      kind: "refused",
      refusal: "warehouse",
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
        refusal: "other",
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
      refusal: "warehouse",
      reason: `${label}: the warehouse no longer holds the copy: ${all}`,
      ...figures,
    };
  }
  if (source.rows === 0) return { kind: "already-clean", figures: recorded, record };
  if (recorded.fingerprint === undefined) {
    return {
      kind: "refused",
      refusal: "not-fingerprinted",
      reason:
        `${label}: copied before content fingerprints were recorded, so nothing proves its ${source.rows} source rows ` +
        'equal the copy; clean with "recopy_changed_days": true to copy the day again and then clean it',
      ...figures,
    };
  }
  if (!sameFigures(source, recorded) || source.fingerprint !== recorded.fingerprint) {
    return {
      kind: "refused",
      refusal: "changed",
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

/** The refusal of a day whose warehouse figures could not be read (its recorded destination is unusable, say). */
export function warehouseUnreadable(
  label: string,
  error: Error,
  source: DayFigures,
  record: CopiedDayRecord | undefined,
): RefusedDay {
  return {
    kind: "refused",
    refusal: "warehouse",
    reason: `${label}: ${error.message}`,
    source,
    ...(record ? { recorded: record.figures } : {}),
  };
}

/** A day cleanup refused (or, in a dry run, would refuse); its rows are kept. */
export interface DayRefusal {
  readonly day: CalendarDay;
  readonly refusal: RefusalReason;
  readonly reason: string;
}

/** The error that stops a task at a refused day. */
export function refusalError(refused: Pick<RefusedDay, "reason" | "refusal">): VerificationError {
  return new VerificationError(refused.reason, { reason: refused.refusal });
}

/**
 * The refusal of a day whose rows other rows still reference: deleting them
 * would make the database delete, or change, rows nobody asked to touch, or
 * fail. Undefined when nothing references the day.
 */
export function judgeReferences(label: string, counts: readonly ReferenceCount[]): RefusedDay | undefined {
  const found = counts.filter((count) => count.rows > 0);
  if (found.length === 0) return undefined;
  return {
    kind: "refused",
    refusal: "foreign-key",
    reason: `${label}: ${found.map(describeReference).join("; ")}. Archive and clean the referencing table first; the day's rows are kept`,
  };
}

/** One referencing key's rows, with what its ON DELETE rule would do. */
function describeReference({ key, rows }: ReferenceCount): string {
  const columns = key.childColumns.join(", ");
  const effect: Record<string, string> = {
    CASCADE: "would delete those rows too",
    "SET NULL": `would set their ${columns} to NULL`,
    "SET DEFAULT": `would set their ${columns} to the default`,
  };
  const table = key.selfReferencing
    ? `${key.childTable} itself (rows of other days, or rows deleted after the rows they reference)`
    : key.childTable;
  return (
    `${rows} ${rows === 1 ? "row" : "rows"} of ${table} reference these rows through foreign key ${key.constraint} ` +
    `(${key.childColumns.join(", ")} ON DELETE ${key.onDelete}), which ${effect[key.onDelete] ?? "would refuse the delete"}`
  );
}

/**
 * The refusal for a chunk outcome that stops its day (`changed`,
 * `referenced`, `side-effects-added`), or undefined for one that does not.
 * `where` names the day and the chunk, `before` what became of the day so
 * far, and `changed` how the rows differ from what was expected.
 */
export function chunkRefusal(
  outcome: ChunkOutcome,
  where: string,
  before: string,
  changed: () => string,
): VerificationError | undefined {
  if (outcome.kind === "changed") {
    return new VerificationError(`${where}: ${changed()}; ${before}`, { reason: "changed" });
  }
  if (outcome.kind === "referenced") {
    return new VerificationError(
      `${where}: ${outcome.references.map(describeReference).join("; ")}; ${before}. ` +
        "Archive and clean the referencing table first",
      { reason: "foreign-key" },
    );
  }
  if (outcome.kind === "side-effects-added") {
    const { referencingKeys, deleteTriggers } = outcome.added;
    const what = [
      ...referencingKeys.map(
        (key) => `foreign key ${key.constraint} of ${key.childTable} (ON DELETE ${key.onDelete})`,
      ),
      ...deleteTriggers.map((name) => `DELETE trigger ${name}`),
    ].join(", ");
    return new VerificationError(
      `${where}: ${what} appeared on the table during its cleanup; ${before}. Run the cleanup again to check the day against it`,
      { reason: referencingKeys.length > 0 ? "foreign-key" : "trigger" },
    );
  }
  return undefined;
}

/**
 * A day recorded as cleaned is not taken on trust while the source holds rows
 * of it: rows that arrived after its cleanup (in no copy), or a cleanup record
 * left from an earlier run of a table that was filled again. Either way they
 * are kept, and the day does not count as clean.
 */
export async function requireStillClean(
  deps: CleanupDeps,
  schema: TableSchema,
  scope: DayScope,
  done: DayCleanup,
): Promise<void> {
  const { rows } = await deps.source.dayFigures(schema, scope.column, scope.day);
  if (rows === 0) return;
  throw new VerificationError(
    `${scope.table} ${scope.day}: recorded as cleaned${done.doneAt ? ` at ${done.doneAt}` : ""}, but the source ` +
      `holds ${rows} ${rows === 1 ? "row" : "rows"} of the day now: rows that arrived after its cleanup, or a ` +
      "cleanup record left from an earlier run. They are in no copy of this day and are kept",
    { reason: "rows-after-cleanup" },
  );
}

/** A DELETE trigger runs for every deleted row (an audit table, a counter): only when the message allows it. */
export function requireTriggersAllowed(
  scope: DayScope,
  sideEffects: DeleteSideEffects,
  task: CleanDayTask,
): void {
  if (sideEffects.deleteTriggers.length === 0 || task.allowDeleteTriggers) return;
  throw new VerificationError(
    `${scope.table} ${scope.day}: ${describeTriggers(scope.table, sideEffects.deleteTriggers)}`,
    { reason: "trigger" },
  );
}

/** The refusal of a table with DELETE triggers, for the cleanup message and its tasks. */
export function describeTriggers(table: string, triggers: readonly string[]): string {
  const names = triggers.join(", ");
  return (
    `table "${table}" has DELETE ${triggers.length === 1 ? "trigger" : "triggers"} ${names}, which would run for every deleted row; ` +
    'nothing was deleted. Set "allow_delete_triggers": true in the cleanup message to let them run'
  );
}

/** Why a day's copy record cannot vouch for cleaning it by `column`: there is none, or it was copied by another. */
export function copyRecordProblem(record: CopiedDayRecord | undefined, column: string): string | undefined {
  if (!record) return "no copy record for the day";
  if (record.filterColumn !== column) return `copied by column "${record.filterColumn}", not "${column}"`;
  return undefined;
}

/**
 * A resumed day was verified with the column of its copy record; a task naming
 * another column would delete another column's day.
 */
export function requireCopiedBy(scope: DayScope, record: CopiedDayRecord | undefined): void {
  const unvouched = copyRecordProblem(record, scope.column);
  if (unvouched === undefined) return;
  throw new VerificationError(
    `${scope.table} ${scope.day}: resuming a cleanup by column "${scope.column}", but ${unvouched}; ` +
      "nothing more is deleted",
    { reason: "no-record" },
  );
}

/** A plan stored by a version without fingerprints cannot prove what is left of its day. */
export function requireChunkPlan(scope: DayScope, plan: CleanupPlan): ChunkPlan {
  if (plan.kind === "chunks") return plan;
  throw new VerificationError(
    `${scope.table} ${scope.day}: its cleanup was planned by an earlier version without content fingerprints and ` +
      "stopped part way; what is left cannot be proven identical to the copy, so nothing more is deleted",
    { reason: "not-fingerprinted" },
  );
}

/**
 * Second line of defence after verification: every chunk lies inside the
 * key range recorded at copy time. Verification already made the day's min
 * and max equal to it; this keeps a plan that does not from ever reaching a
 * DELETE.
 */
export function requireChunksWithin(scope: DayScope, range: KeyRange, chunks: readonly DayChunk[]): void {
  const min = BigInt(range.min);
  const max = BigInt(range.max);
  for (const chunk of chunks) {
    if (BigInt(chunk.first) < min || BigInt(chunk.last) > max) {
      throw new VerificationError(
        `${scope.table} ${scope.day}: chunk ${chunk.first}..${chunk.last} leaves the recorded key range ${range.min}..${range.max}`,
        { reason: "changed" },
      );
    }
  }
}
