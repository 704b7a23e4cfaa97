import type { CalendarDay } from "./calendar-day";

/**
 * What a day holds, as counted by one side (source or warehouse). Key figures
 * exist only when the table's primary key is one integer column; sums, mins and
 * maxes are decimal strings because they exceed 2^53.
 */
export interface DayFigures {
  readonly rows: number;
  /**
   * The source's content fingerprint of the day's rows: an order-independent
   * sum of a 64-bit hash of every column of every row, as decimal text. Only
   * the source computes it (the copy records it, cleanup compares it); the
   * warehouse's figures never carry one.
   */
  readonly fingerprint?: string;
  readonly key?: {
    readonly column: string;
    readonly count: number;
    readonly sum: string;
    readonly min: string;
    readonly max: string;
  };
}

/** The raw values of a figures query, numbers or text as a driver returns them. */
export interface FigureValues {
  readonly rows: unknown;
  /** Only where the query computed one (the source's). */
  readonly fingerprint?: unknown;
  readonly count?: unknown;
  readonly sum?: unknown;
  readonly min?: unknown;
  readonly max?: unknown;
}

/**
 * A figures query's answer as DayFigures, the key's figures only with a key
 * column. A value that is absent is a day without rows: no rows, a zero
 * count and sum, and no bounds ("", as MIN and MAX of no rows are NULL;
 * sameFigures ignores bounds when the count is 0).
 */
export function dayFiguresFrom(keyColumn: string | undefined, values: FigureValues): DayFigures {
  const rows = Number(values.rows ?? 0);
  const figures =
    values.fingerprint === undefined ? { rows } : { rows, fingerprint: String(values.fingerprint) };
  if (!keyColumn) return figures;
  const { count, sum, min, max } = values;
  return {
    ...figures,
    key: {
      column: keyColumn,
      count: Number(count ?? 0),
      sum: String(sum ?? "0"),
      min: String(min ?? ""),
      max: String(max ?? ""),
    },
  };
}

/** The figures of a day without rows (or of a table that does not exist yet): no bounds, a zero sum. */
export function emptyDayFigures(keyColumn?: string): DayFigures {
  return keyColumn
    ? { rows: 0, key: { column: keyColumn, count: 0, sum: "0", min: "", max: "" } }
    : { rows: 0 };
}

/** Each of `days` with the figures of a day without rows: what a count of several days starts from. */
export function emptyDaysFigures(
  days: readonly CalendarDay[],
  keyColumn?: string,
): Map<CalendarDay, DayFigures> {
  return new Map(days.map((day) => [day, emptyDayFigures(keyColumn)]));
}

/**
 * The figures of two disjoint sets of rows of one day taken together (slices
 * of a day read one after the other): rows, fingerprints and key counts and
 * sums added, the key's bounds widened. A fingerprint is kept only when both
 * sides have one.
 */
export function addFigures(a: DayFigures, b: DayFigures): DayFigures {
  const both = a.fingerprint !== undefined && b.fingerprint !== undefined;
  const fingerprint = both
    ? { fingerprint: String(BigInt(a.fingerprint ?? 0) + BigInt(b.fingerprint ?? 0)) }
    : {};
  const sum = { rows: a.rows + b.rows, ...fingerprint };
  if (!a.key || !b.key) return sum;
  if (a.key.count === 0) return { ...sum, key: b.key };
  if (b.key.count === 0) return { ...sum, key: a.key };
  const [aMin, bMin, aMax, bMax] = [a.key.min, b.key.min, a.key.max, b.key.max]
    .map(canonicalInteger)
    .map(BigInt);
  return {
    ...sum,
    key: {
      column: a.key.column,
      count: a.key.count + b.key.count,
      sum: String(BigInt(canonicalInteger(a.key.sum)) + BigInt(canonicalInteger(b.key.sum))),
      min: String((aMin ?? 0n) < (bMin ?? 0n) ? aMin : bMin),
      max: String((aMax ?? 0n) > (bMax ?? 0n) ? aMax : bMax),
    },
  };
}

export function describeFigures(f: DayFigures): string {
  const key = f.key
    ? `, key ${f.key.column} count ${f.key.count} sum ${f.key.sum} min ${f.key.min} max ${f.key.max}`
    : "";
  return `${f.rows} rows${key}`;
}

/** Exact agreement: rows, and key count, sum, min and max when both sides have key figures. */
export function sameFigures(a: DayFigures, b: DayFigures): boolean {
  if (a.rows !== b.rows) return false;
  if (!a.key && !b.key) return true;
  if (!a.key || !b.key || a.key.column !== b.key.column) return false;
  if (a.key.count !== b.key.count || a.key.count !== a.rows) return false;
  if (canonicalInteger(a.key.sum) !== canonicalInteger(b.key.sum)) return false;
  if (a.key.count === 0) return true;
  return (
    canonicalInteger(a.key.min) === canonicalInteger(b.key.min) &&
    canonicalInteger(a.key.max) === canonicalInteger(b.key.max)
  );
}

/**
 * One spelling per integer, whichever side printed it (`"012"`, `"12.0"` and
 * `"12"` are the same key sum). Text that is not an integer stays as it is,
 * so it can only ever equal the same text.
 */
export function canonicalInteger(text: string): string {
  const match = /^\s*([+-]?\d+)(?:\.0*)?\s*$/.exec(text);
  return match?.[1] ? BigInt(match[1]).toString() : text;
}
