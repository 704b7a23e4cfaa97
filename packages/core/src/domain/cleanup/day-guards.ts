import { VerificationError } from "../../errors";
import type { CleanupPlan, DayCleanup } from "../../ports/cleanup-state";
import type { DayScope, DeleteSideEffects } from "../../ports/day-deleter";
import type { CopiedDayRecord } from "../../ports/migration-ledger";
import type { CleanDayTask } from "../tasks/task-payload";
import type { TableSchema } from "../types/table-schema";
import type { CleanupDeps } from "./cleanup-deps";
import type { ChunkPlan } from "./delete-day";

// What a cleanup task checks about its day before it deletes anything, beyond verification.

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
