import type { Partitioning, RangePartition } from "../../ports/partitioned-table";

/** One row of information_schema.PARTITIONS for a table, in partition order. */
export interface PartitionRow {
  readonly name: string | null;
  readonly subpartition: string | null;
  readonly method: string | null;
  readonly expression: string | null;
  readonly description: string | null;
}

/** TO_DAYS('1970-01-01'): the server's day number of the Unix epoch. */
const EPOCH_DAYS = 719_528;
const DAY_MS = 86_400_000;

/**
 * How the table is partitioned, read from its information_schema.PARTITIONS
 * rows: a RANGE on `function(column)` for TO_DAYS, TO_SECONDS or YEAR, or a
 * RANGE COLUMNS on one column, with each partition's upper bound as an
 * instant; anything else is described in the server's words.
 */
export function partitioningOf(rows: readonly PartitionRow[]): Partitioning {
  const first = rows[0];
  if (!first?.name || !first.method) return { kind: "none" };
  const described = `PARTITION BY ${first.method} (${first.expression ?? ""})`;
  if (rows.some((row) => row.subpartition !== null)) {
    return { kind: "other", description: `${described} with subpartitions` };
  }
  const parsed = rangeFunction(first.method, first.expression ?? "");
  if (!parsed) return { kind: "other", description: described };
  const partitions: RangePartition[] = [];
  for (const row of rows) {
    const below = upperBound(parsed.fn, row.description ?? "");
    if (below === null) return { kind: "other", description: `${described}: bound ${row.description}` };
    partitions.push({ name: String(row.name), below });
  }
  return { kind: "range", column: parsed.column, partitions };
}

type RangeFn = "TO_DAYS" | "TO_SECONDS" | "YEAR" | "COLUMNS";

function rangeFunction(method: string, expression: string): { fn: RangeFn; column: string } | undefined {
  const column = (text: string) => /^`((?:[^`]|``)+)`$/.exec(text.trim())?.[1]?.replace(/``/g, "`");
  if (method === "RANGE COLUMNS") {
    const name = column(expression);
    return name ? { fn: "COLUMNS", column: name } : undefined;
  }
  if (method !== "RANGE") return undefined;
  const call = /^\s*(to_days|to_seconds|year)\s*\((.*)\)\s*$/i.exec(expression);
  const name = call?.[2] ? column(call[2]) : undefined;
  if (!call?.[1] || !name) return undefined;
  return { fn: call[1].toUpperCase() as RangeFn, column: name };
}

/** The instant a `VALUES LESS THAN` bound stands for; undefined for MAXVALUE, null when unreadable. */
export function upperBound(fn: RangeFn, description: string): string | undefined | null {
  const text = description.trim();
  if (text === "MAXVALUE") return undefined;
  if (fn === "COLUMNS") {
    const literal = /^'(\d{4}-\d{2}-\d{2})(?: (\d{2}:\d{2}:\d{2}(?:\.\d+)?))?'$/.exec(text);
    return literal?.[1] ? `${literal[1]} ${literal[2] ?? "00:00:00"}` : null;
  }
  if (!/^-?\d+$/.test(text)) return null;
  const value = Number(text);
  if (fn === "YEAR") return `${String(value).padStart(4, "0")}-01-01 00:00:00`;
  const days = fn === "TO_DAYS" ? value : Math.floor(value / 86_400);
  const seconds = fn === "TO_DAYS" ? 0 : value - days * 86_400;
  if (days <= 366) return null;
  const instant = new Date((days - EPOCH_DAYS) * DAY_MS + seconds * 1000).toISOString();
  return `${instant.slice(0, 10)} ${instant.slice(11, 19)}`;
}
