import { type DuckDBConnection, quotedIdentifier } from "@duckdb/node-api";
import { type DuckDbDay, dayPredicate, qualifiedName } from "./duckdb-catalog";

/** A key as this listing prints it (`CAST AS VARCHAR` of an integer column): safe to write into SQL. */
const KEY_TEXT = /^-?\d{1,20}$/;

/**
 * The keys the day holds in `keyColumn` above `after` (from the smallest when
 * absent), at most `limit`, ascending, as decimal text (`CAST AS VARCHAR`
 * prints UBIGINT and negative BIGINT keys exactly). A row without a key has
 * none to list.
 */
export async function dayKeyPageOn(
  connection: DuckDBConnection,
  { destination, filterColumn, day }: DuckDbDay,
  keyColumn: string,
  after: string | undefined,
  limit: number,
): Promise<string[]> {
  if (after !== undefined && !KEY_TEXT.test(after)) throw new Error(`not a key of this listing: ${after}`);
  const key = quotedIdentifier(keyColumn);
  // An integer literal past BIGINT is a HUGEINT, so the comparison is exact for UBIGINT keys too.
  const above = after === undefined ? "" : ` AND ${key} > ${after}`;
  const reader = await connection.runAndReadAll(
    `SELECT CAST(${key} AS VARCHAR) FROM ${qualifiedName(destination)}
     WHERE ${dayPredicate(filterColumn, day)} AND ${key} IS NOT NULL${above}
     ORDER BY ${key} LIMIT ${limit}`,
  );
  return reader.getRows().map(([value]) => String(value));
}

/**
 * Warehouse.dayKeys over `read`, which answers one page above a key:
 * each page is a query of its own, run when the iteration asks for it, so
 * no connection or result stays open between pages (the re-copy reading them
 * holds its replace's transaction open meanwhile, on another connection).
 * A page shorter than `pageKeys` is the last.
 */
export async function* keyPages(
  pageKeys: number,
  read: (after: string | undefined) => Promise<readonly string[]>,
): AsyncGenerator<readonly string[]> {
  if (!Number.isSafeInteger(pageKeys) || pageKeys < 1) {
    throw new RangeError(`pageKeys must be a positive integer, got ${pageKeys}`);
  }
  let after: string | undefined;
  for (;;) {
    const keys = await read(after);
    if (keys.length > 0) yield keys;
    if (keys.length < pageKeys) return;
    after = keys.at(-1);
  }
}
