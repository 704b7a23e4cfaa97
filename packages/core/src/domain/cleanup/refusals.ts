import { type RefusalReason, VerificationError } from "../../errors";
import type { ChunkPlan, CleanupPlan, DayCleanup } from "../../ports/cleanup-state";
import type { ChunkOutcome, DayScope, DeleteSideEffects, ReferenceCount } from "../../ports/day-deleter";
import type { CopiedDayRecord } from "../../ports/migration-ledger";
import type { CalendarDay } from "../days/calendar-day";
import type { CleanDayTask } from "../tasks/task-payload";
import type { DayFigures } from "../types/day-figures";
import type { TableSchema } from "../types/table-schema";
import type { CleanupDeps } from "./cleanup-deps";

// Every way cleanup refuses a day, and its wording: a refused day keeps its rows. A refusal is
// a RefusedDay while a day is judged (verification, the dry run), a DayRefusal in a cleanup's
// summary, and a VerificationError (refusalError) where a task stops; `refusal` is always one of
// RefusalReason, for summaries, and `reason` the operator's sentence.

/** Verification's refusal of a day: its reason, its kind, and the figures that disagree. */
export interface RefusedDay {
  readonly kind: "refused";
  readonly reason: string;
  /** The kind of refusal, for summaries. */
  readonly category: RefusalReason;
  readonly source?: DayFigures;
  readonly warehouse?: DayFigures;
  readonly recorded?: DayFigures;
}

/** A day cleanup refused (or, in a dry run, would refuse); its rows are kept. */
export interface DayRefusal {
  readonly day: CalendarDay;
  readonly refusal: RefusalReason;
  readonly reason: string;
}

/** The error that stops a task at a refused day. */
export function refusalError(refused: Pick<RefusedDay, "reason" | "category">): VerificationError {
  return new VerificationError(refused.reason, { reason: refused.category });
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
    category: "foreign-key",
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

/**
 * A resumed day was verified with the column of its copy record; a task naming
 * another column would delete another column's day.
 */
export function requireCopiedBy(scope: DayScope, record: CopiedDayRecord | undefined): void {
  if (record?.filterColumn !== scope.column) {
    throw new VerificationError(
      `${scope.table} ${scope.day}: resuming a cleanup by column "${scope.column}", but the day was copied ` +
        (record ? `by column "${record.filterColumn}"` : "with no copy record left") +
        "; nothing more is deleted",
      { reason: "no-record" },
    );
  }
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
