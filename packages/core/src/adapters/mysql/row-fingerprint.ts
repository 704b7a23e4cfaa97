import type { LogicalType } from "../../domain/types/logical-type";
import type { TableSchema } from "../../domain/types/table-schema";
import { quoteIdentifier } from "./quote-identifier";
import { valueExpression } from "./read-plan";

/**
 * The content fingerprint of a set of rows: the sum, as an exact decimal, of
 * a 64-bit hash of each row (the first 16 hex digits of SHA1 over the row's
 * canonical bytes). A sum, not XOR, so two identical rows never cancel out,
 * and independent of row order, so any chunking of a day adds up to the day.
 *
 * MySQL computes every row hash the archiver compares, with this one
 * expression: the copy (each row's hash streamed beside its values, so the
 * sum describes exactly the copied rows, added up by the reader as exact
 * integers), verification (per chunk, over the day as it is now) and each
 * chunk's locking read before its delete. No value is ever formatted by two
 * engines.
 *
 * A row's canonical bytes are its values joined by '#', as the copy reads
 * them: numbers, dates and times as the server prints them (they never
 * contain '#'); text, JSON, binary and geometry as their byte length and
 * their bytes (`CAST(... AS BINARY)`, so collations never mix and 'a' differs
 * from 'A'); and last, when the table has nullable columns, a map of which of
 * them are NULL. So no two different rows share canonical bytes. SHA1 because
 * servers compute it several times faster than MD5.
 */
export function rowHashHex(schema: TableSchema): string {
  let hex = rowHashes.get(schema);
  if (!hex) {
    const parts = schema.columns.map((column) => {
      const value = valueExpression(column);
      return PRINTED_KINDS.has(column.logicalType.kind)
        ? value
        : `LENGTH(${value}), CAST(${value} AS BINARY)`;
    });
    const nullable = schema.columns.filter((column) => column.nullable);
    if (nullable.length > 0) {
      parts.push(`CONCAT(${nullable.map((column) => `ISNULL(${quoteIdentifier(column.name)})`).join(", ")})`);
    }
    hex = `LEFT(SHA1(CONCAT_WS('#', ${parts.join(", ")})), 16)`;
    rowHashes.set(schema, hex);
  }
  return hex;
}

/** Kinds whose printed value is digits, signs, '.', ':', '-', ' ' or 'e': never '#'. */
const PRINTED_KINDS = new Set<LogicalType["kind"]>([
  "int32",
  "int64",
  "uint64",
  "decimal",
  "float32",
  "float64",
  "datetime",
  "date",
  "time",
  "year",
  "bit",
]);

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
