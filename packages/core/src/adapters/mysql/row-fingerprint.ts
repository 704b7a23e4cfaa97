import type { TableSchema } from "../../domain/types/table-schema";
import { valueExpression } from "./read-plan";

/**
 * The content fingerprint of a set of rows: the sum, as an exact decimal, of
 * a 64-bit hash of each row (the first 16 hex digits of MD5 over the row's
 * canonical bytes). A sum, not XOR, so two identical rows never cancel out,
 * and independent of row order, so any chunking of a day adds up to the day.
 *
 * MySQL computes every fingerprint the archiver compares, with this one
 * expression: the copy (beside each streamed row, so the fingerprint and the
 * copied rows come from one statement), verification (per chunk, over the day
 * as it is now) and each chunk's locking read before its delete. No value is
 * ever formatted by two engines.
 *
 * A row's canonical bytes are, joined by '#': a map of which columns are NULL,
 * then for each non-NULL column its byte length and its bytes (`CAST(... AS
 * BINARY)` of the value as the copy reads it, so collations and character
 * sets never mix and 'a' differs from 'A'). The lengths make the encoding
 * unambiguous: no two different rows share canonical bytes.
 */
export function rowHashHex(schema: TableSchema): string {
  let hex = rowHashes.get(schema);
  if (!hex) {
    const values = schema.columns.map((column) => `CAST(${valueExpression(column)} AS BINARY)`);
    const nullMap = `CONCAT(${values.map((value) => `ISNULL(${value})`).join(", ")})`;
    const parts = values.map((value) => `LENGTH(${value}), ${value}`);
    hex = `LEFT(MD5(CONCAT_WS('#', ${nullMap}, ${parts.join(", ")})), 16)`;
    rowHashes.set(schema, hex);
  }
  return hex;
}

/** Schemas are immutable and a described table keeps its schema object, so each is built once. */
const rowHashes = new WeakMap<TableSchema, string>();

/** The row's 64-bit hash as an unsigned integer, for SUM. */
export function rowHashNumber(schema: TableSchema): string {
  return `CAST(CONV(${rowHashHex(schema)}, 16, 10) AS UNSIGNED)`;
}

/** The fingerprint of the rows a query selects, as decimal text (0 for no rows). SUM of BIGINT UNSIGNED is an exact DECIMAL. */
export function fingerprintSum(schema: TableSchema): string {
  return `CAST(COALESCE(SUM(${rowHashNumber(schema)}), 0) AS CHAR)`;
}

/**
 * Adds up row hashes as `rowHashHex` prints them, exactly, in the reader's
 * hot loop: two 32-bit halves summed as doubles (exact below 2^53, so folded
 * into a bigint every 2^20 rows), the sum MySQL's SUM over `rowHashNumber`
 * gives for the same rows.
 */
export class FingerprintSum {
  private high = 0;
  private low = 0;
  private count = 0;
  private total = 0n;

  add(hex: string): void {
    this.high += Number.parseInt(hex.slice(0, 8), 16);
    this.low += Number.parseInt(hex.slice(8, 16), 16);
    if (++this.count === FOLD_EVERY) this.fold();
  }

  /** The sum so far, as decimal text. */
  value(): string {
    this.fold();
    return this.total.toString();
  }

  private fold(): void {
    this.total += (BigInt(this.high) << 32n) + BigInt(this.low);
    this.high = 0;
    this.low = 0;
    this.count = 0;
  }
}

/** 2^20 halves of at most 2^32 each stay below 2^53. */
const FOLD_EVERY = 1 << 20;
