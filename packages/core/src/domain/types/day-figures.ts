/**
 * What a day holds, as counted by one side (source or warehouse). Key figures
 * exist only when the table's primary key is one integer column; sums, mins and
 * maxes are decimal strings because they exceed 2^53.
 */
export interface DayFigures {
  readonly rows: number;
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
