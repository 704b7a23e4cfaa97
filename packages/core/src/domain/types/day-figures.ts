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

export function figuresAgree(a: DayFigures, b: DayFigures): boolean {
  if (a.rows !== b.rows) return false;
  if (!a.key || !b.key) return true;
  return (
    a.key.count === b.key.count &&
    a.key.sum === b.key.sum &&
    (a.key.count === 0 || (a.key.min === b.key.min && a.key.max === b.key.max))
  );
}

export function describeFigures(f: DayFigures): string {
  const key = f.key
    ? `, key ${f.key.column} count ${f.key.count} sum ${f.key.sum} min ${f.key.min} max ${f.key.max}`
    : "";
  return `${f.rows} rows${key}`;
}
