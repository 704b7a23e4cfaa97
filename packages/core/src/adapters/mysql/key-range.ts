/**
 * A range of integer keys is read or locked through the primary key when the
 * keys between its first and last are at most this many times its rows: the
 * clustered index is then scanned in key order, touching at most this many
 * rows per row wanted (gaps in the keys cost nothing). Sparser ranges (keys
 * not following time) are left to the filter column's index.
 */
export const DENSE_KEY_FACTOR = 4n;

/** True when `rows` rows with keys from `first` to `last` are dense enough for the primary key (DENSE_KEY_FACTOR). */
export function isDenseKeyRange(first: string, last: string, rows: number): boolean {
  return BigInt(last) - BigInt(first) + 1n <= DENSE_KEY_FACTOR * BigInt(Math.max(rows, 1));
}

/** A key as canonical decimal text; anything else is a bug upstream and must never reach SQL. */
export function integerText(value: string): string {
  if (!/^-?\d+$/.test(value)) throw new Error(`not an integer key: ${JSON.stringify(value)}`);
  return BigInt(value).toString();
}
