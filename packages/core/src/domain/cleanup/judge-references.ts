import type { ReferenceCount } from "../../ports/day-deleter";
import type { DayVerdict } from "./verify-day";

/**
 * The refusal of a day whose rows other rows still reference: deleting them
 * would make the database delete, or change, rows nobody asked to touch, or
 * fail. Undefined when nothing references the day.
 */
export function judgeReferences(
  label: string,
  counts: readonly ReferenceCount[],
): Extract<DayVerdict, { kind: "refused" }> | undefined {
  const found = counts.filter((count) => count.rows > 0);
  if (found.length === 0) return undefined;
  return {
    kind: "refused",
    category: "foreign-key",
    reason: `${label}: ${found.map(describeReference).join("; ")}. Archive and clean the referencing table first; the day's rows are kept`,
  };
}

/** One referencing key's rows, with what its ON DELETE rule would do. */
export function describeReference({ key, rows }: ReferenceCount): string {
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
