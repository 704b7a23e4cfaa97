import type { SqlQuery } from "./sql-query";

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

/**
 * The range from `first` to `last` (integer texts) cut into consecutive
 * ranges of at most `size` keys each, in ascending order.
 */
export function* keyRangePages(
  first: string,
  last: string,
  size: number,
): Generator<{ readonly min: string; readonly max: string }> {
  const step = BigInt(Math.max(1, Math.floor(size)));
  const end = BigInt(last);
  for (let min = BigInt(first); min <= end; min += step) {
    const max = min + step - 1n < end ? min + step - 1n : end;
    yield { min: min.toString(), max: max.toString() };
  }
}

/** A key as canonical decimal text; anything else is a bug upstream and must never reach SQL. */
export function integerText(value: string): string {
  if (!/^-?\d+$/.test(value)) throw new Error(`not an integer key: ${JSON.stringify(value)}`);
  return BigInt(value).toString();
}

/**
 * The rows whose key (`quotedKey`) lies in [first, last]. Keys are bound as
 * text and cast, so keys beyond 2^53 compare as integers, never as doubles.
 */
export function keyRangeCondition(
  quotedKey: string,
  unsigned: boolean,
  first: string,
  last: string,
): SqlQuery {
  const cast = unsigned ? "UNSIGNED" : "SIGNED";
  return {
    sql: `${quotedKey} >= CAST(? AS ${cast}) AND ${quotedKey} <= CAST(? AS ${cast})`,
    values: [integerText(first), integerText(last)],
  };
}

/** The smallest and largest key (`quotedKey`) as text, and the row count, of the rows of `from` that `where` selects. */
export function keyBoundsQuery(from: string, quotedKey: string, where: SqlQuery): SqlQuery {
  return {
    sql: `SELECT CAST(MIN(${quotedKey}) AS CHAR), CAST(MAX(${quotedKey}) AS CHAR), COUNT(*) FROM ${from} WHERE ${where.sql}`,
    values: where.values,
  };
}
