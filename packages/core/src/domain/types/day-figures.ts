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

/** The figures of a day without rows (or of a table that does not exist yet): no bounds, a zero sum. */
export function emptyDayFigures(keyColumn?: string): DayFigures {
  return keyColumn
    ? { rows: 0, key: { column: keyColumn, count: 0, sum: "0", min: "", max: "" } }
    : { rows: 0 };
}

export function describeFigures(f: DayFigures): string {
  const key = f.key
    ? `, key ${f.key.column} count ${f.key.count} sum ${f.key.sum} min ${f.key.min} max ${f.key.max}`
    : "";
  return `${f.rows} rows${key}`;
}
