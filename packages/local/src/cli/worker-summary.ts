import type { FailedTask, WorkerOutcomes } from "../worker/run-worker";
import { count, number } from "./wording";

/**
 * The stderr line for a task that failed for good, printed once as it
 * happens: `refused: <table> <day>: <message>` for a refused day
 * (VERIFICATION_FAILED), `failed: <table> <day> (<kind>): <message>` for
 * anything else.
 */
export function failureLine(failure: FailedTask): string {
  const { task, message } = failure;
  if (!task) return `failed: job ${failure.jobId ?? "(no id)"}: ${message}`;
  if (failure.code === "VERIFICATION_FAILED") return refusalLine("refused", task.table, task.day, message);
  return `failed: ${task.table} ${task.day} (${task.kind}): ${message}`;
}

/** `<what>: <table> <day>: <reason>`, without the table and day the reason itself may start with. */
export function refusalLine(what: string, table: string, day: string, reason: string): string {
  const label = `${table} ${day}`;
  const said = reason.startsWith(`${label}: `) ? reason.slice(label.length + 2) : reason;
  return `${what}: ${label}: ${said}`;
}

/**
 * What a worker's run came to, for the closing line: `12 days copied (34,567
 * rows); 10 days cleaned (12,345 rows deleted), 2 already clean; 2 days
 * refused (1 changed, 1 foreign-key); 0 failed for good`. Parts that are zero
 * are left out, except the failures.
 */
export function summarizeOutcomes(outcomes: WorkerOutcomes): string {
  const { copied, cleanup } = outcomes;
  const parts: string[] = [];
  if (copied.days > 0) parts.push(`${count(copied.days, "day")} copied (${count(copied.rows, "row")})`);

  const cleanupParts: string[] = [];
  if (cleanup.cleaned > 0) {
    cleanupParts.push(
      `${count(cleanup.cleaned, "day")} cleaned (${count(cleanup.rowsDeleted, "row")} deleted)`,
    );
  }
  for (const [days, what] of [
    [cleanup.alreadyClean, "already clean"],
    [cleanup.alreadyDone, "already done"],
  ] as const) {
    if (days > 0) cleanupParts.push(`${cleanupParts.length ? number(days) : count(days, "day")} ${what}`);
  }
  if (cleanupParts.length) parts.push(cleanupParts.join(", "));

  const refused = outcomes.failed.filter((f) => f.code === "VERIFICATION_FAILED");
  if (refused.length > 0) parts.push(`${count(refused.length, "day")} refused (${reasons(refused)})`);
  if (parts.length === 0) parts.push("nothing copied or cleaned");
  parts.push(`${number(outcomes.failed.length - refused.length)} failed for good`);
  return parts.join("; ");
}

/** `changed` when every refusal has the same reason, otherwise `1 changed, 1 foreign-key` (most first). */
function reasons(refused: readonly FailedTask[]): string {
  const byReason = new Map<string, number>();
  for (const failure of refused) {
    const reason = failure.reason ?? "other";
    byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
  }
  if (byReason.size === 1) return [...byReason.keys()].join("");
  return [...byReason]
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([reason, n]) => `${number(n)} ${reason}`)
    .join(", ");
}
