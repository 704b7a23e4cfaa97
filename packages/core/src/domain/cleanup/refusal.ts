import { RefusalError, type RefusalReason } from "../../errors";
import type { CalendarDay } from "../../model/calendar-day";
import type { DayChunk } from "../../model/day-chunks";
import type { DayFigures } from "../../model/day-figures";
import type { ChunkOutcome, DeleteSideEffects, ReferenceCount } from "../../ports/day-deleter";

/**
 * Why cleanup keeps a day's rows (or a whole table's): a word an operator's
 * summary can group by (`refusal`), the operator's sentence (`reason`), and,
 * when figures disagree, each of them. A refusal is a value wherever a day is
 * judged; it becomes a RefusalError only where a task or a message ends
 * (refusalError), for the transport to answer.
 */
export interface Refusal {
  readonly kind: "refused";
  readonly refusal: RefusalReason;
  readonly reason: string;
  readonly source?: DayFigures;
  readonly warehouse?: DayFigures;
  readonly recorded?: DayFigures;
}

/** A refused day as a cleanup's summary lists it. */
export type DayRefusal = Pick<Refusal, "refusal" | "reason"> & { readonly day: CalendarDay };

export function refuse(
  refusal: RefusalReason,
  reason: string,
  figures: Pick<Refusal, "source" | "warehouse" | "recorded"> = {},
): Refusal {
  return { kind: "refused", refusal, reason, ...figures };
}

export function isRefusal(value: unknown): value is Refusal {
  return typeof value === "object" && value !== null && (value as Refusal).kind === "refused";
}

/** The error a refusal ends its task or message with. */
export function refusalError(refused: Pick<Refusal, "reason" | "refusal">, field?: string): RefusalError {
  return new RefusalError(refused.reason, { reason: refused.refusal, ...(field ? { field } : {}) });
}

/**
 * The trigger rule, for the cleanup message and for each of its tasks: a
 * DELETE trigger runs for every deleted row (an audit table, a counter), so a
 * table that has one is refused unless the message allows triggers.
 */
export function triggerRefusal(
  table: string,
  sideEffects: DeleteSideEffects,
  allowed: boolean | undefined,
): Refusal | undefined {
  const triggers = sideEffects.deleteTriggers;
  if (triggers.length === 0 || allowed) return undefined;
  return refuse(
    "trigger",
    `table "${table}" has DELETE ${triggers.length === 1 ? "trigger" : "triggers"} ${triggers.join(", ")}, which would run for every deleted row; ` +
      'nothing was deleted. Set "allow_delete_triggers": true in the cleanup message to let them run',
  );
}

/**
 * The refusal of a day whose rows other rows still reference: deleting them
 * would make the database delete, or change, rows nobody asked to touch, or
 * fail. Undefined when nothing references the day.
 */
export function referencesRefusal(label: string, counts: readonly ReferenceCount[]): Refusal | undefined {
  const found = counts.filter((count) => count.rows > 0);
  if (found.length === 0) return undefined;
  return refuse(
    "foreign-key",
    `${label}: ${found.map(describeReference).join("; ")}. Archive and clean the referencing table first; the day's rows are kept`,
  );
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
 * far, and `planned` the chunk as verified.
 */
export function chunkRefusal(
  outcome: ChunkOutcome,
  where: string,
  before: string,
  planned: Pick<DayChunk, "rows" | "fingerprint">,
): Refusal | undefined {
  if (outcome.kind === "changed") {
    const found = `found ${outcome.rows} (fingerprint ${outcome.fingerprint})`;
    return refuse(
      "changed",
      `${where}: rows changed since verification: planned ${planned.rows} rows (fingerprint ${planned.fingerprint}), ${found}; ${before}`,
    );
  }
  if (outcome.kind === "referenced") {
    return refuse(
      "foreign-key",
      `${where}: ${outcome.references.map(describeReference).join("; ")}; ${before}. ` +
        "Archive and clean the referencing table first",
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
    return refuse(
      referencingKeys.length > 0 ? "foreign-key" : "trigger",
      `${where}: ${what} appeared on the table during its cleanup; ${before}. Run the cleanup again to check the day against it`,
    );
  }
  return undefined;
}
