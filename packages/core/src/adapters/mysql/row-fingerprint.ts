import { hash } from "node:crypto";
import type { LogicalType } from "../../model/logical-type";
import type { SourceColumn, TableSchema } from "../../model/table-schema";
import { quoteIdentifier } from "./quote-identifier";
import { isUnmapped, valueExpression } from "./read-plan";

/**
 * The content fingerprint of a set of rows: the sum, as an exact decimal, of
 * a 64-bit hash of each row (the first 16 hex digits of SHA1 over the row's
 * canonical bytes). A sum, not XOR, so two identical rows never cancel out,
 * and independent of row order, so any chunking of a day adds up to the day.
 *
 * Verification (per chunk, over the day as it is now) and each chunk's
 * locking read before its delete compute it on the server, with this one
 * expression. The copy computes it on the archiver's side instead, from the
 * very text the server sent for each value (clientRowHasher), so the primary
 * only reads the rows it copies: hashing costs the server about as much again
 * as reading. Where the archiver cannot rebuild a row's bytes exactly (text
 * in a character set other than UTF-8), the copy asks the server to stream
 * each row's hash beside its values, as verification does.
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

/** A row's 64-bit hash (rowHashHex) as an integer, computed by the archiver from the row as the copy reads it. */
export type RowHasher = (row: readonly unknown[]) => bigint;

/**
 * The archiver's side of rowHashHex, for rows as the copy reads them (see
 * readPlan: numbers, dates, times, decimals and bits as the server's text or
 * as integers, floats as the server's text, text as strings, binary as
 * bytes; zero dates not yet replaced), or undefined when a column's hashed
 * bytes cannot be rebuilt from what the client receives. Each value's text
 * is the one the server sent, and the server prints a value the same way
 * for the client and for CONCAT_WS, so the bytes hashed are the server's
 * bytes. Text is received as UTF-8: only UTF-8 and ASCII columns have the
 * same bytes on both sides (a latin1 'é' is one byte in the column, two on
 * the wire).
 */
export function clientRowHasher(schema: TableSchema): RowHasher | undefined {
  if (clientHashers.has(schema)) return clientHashers.get(schema);
  const encoders = schema.columns.map(valueBytes);
  const hasher = encoders.every((encoder) => encoder !== undefined)
    ? buildHasher(schema, encoders as ValueBytes[])
    : undefined;
  clientHashers.set(schema, hasher);
  return hasher;
}

const clientHashers = new WeakMap<TableSchema, RowHasher | undefined>();

/** How one non-null value enters the hashed bytes: text, or a length-prefixed byte string. */
type ValueBytes = (value: unknown) => string | Uint8Array;

/** Character sets whose bytes in the column are the UTF-8 bytes the client decodes (ASCII is a subset). */
const UTF8_CHARACTER_SETS = new Set(["utf8mb4", "utf8mb3", "utf8", "ascii"]);

function valueBytes(column: SourceColumn): ValueBytes | undefined {
  const kind = column.logicalType.kind;
  // YEAR prints four digits: the year 0 is "0000".
  if (kind === "year") return (value) => String(value).padStart(4, "0");
  if (PRINTED_KINDS.has(kind)) return (value) => (typeof value === "string" ? value : String(value));
  if (isBinary(column)) return lengthPrefixed;
  // A column without a type of its own is read, and hashed, as its utf8mb4 text.
  const utf8 =
    (kind === "string" && isUnmapped(column)) || UTF8_CHARACTER_SETS.has(column.characterSet ?? "");
  return utf8 ? lengthPrefixed : undefined;
}

/** Columns read as bytes (mysql2 Buffers), not text. */
function isBinary(column: SourceColumn): boolean {
  return column.logicalType.kind === "bytes" || column.logicalType.kind === "geometry";
}

/** `LENGTH(v), CAST(v AS BINARY)`: the byte length, '#', the bytes. */
function lengthPrefixed(value: unknown): string | Uint8Array {
  if (typeof value === "string") return `${Buffer.byteLength(value)}#${value}`;
  const bytes = value as Uint8Array;
  return Buffer.concat([Buffer.from(`${bytes.length}#`), bytes]);
}

function buildHasher(schema: TableSchema, encoders: readonly ValueBytes[]): RowHasher {
  const nullable = schema.columns.flatMap((column, index) => (column.nullable ? [index] : []));
  const binary = schema.columns.some(isBinary);
  const sha1 = (bytes: string | Buffer) => BigInt(`0x${hash("sha1", bytes, "hex").slice(0, 16)}`);
  const nullMap = (row: readonly unknown[]) => {
    let map = "";
    for (const index of nullable) map += row[index] === null || row[index] === undefined ? "1" : "0";
    return map;
  };
  // CONCAT_WS('#', ...) skips NULLs, separator included; the map of NULLs comes last.
  if (!binary) {
    // Every part is text: one string, built by concatenation (the row's hashing is most of its cost).
    return (row) => {
      let text: string | undefined;
      for (let i = 0; i < encoders.length; i++) {
        const value = row[i];
        if (value === null || value === undefined) continue;
        const part = (encoders[i] as ValueBytes)(value) as string;
        text = text === undefined ? part : `${text}#${part}`;
      }
      if (nullable.length === 0) return sha1(text ?? "");
      return sha1(text === undefined ? nullMap(row) : `${text}#${nullMap(row)}`);
    };
  }
  return (row) => {
    const parts: (string | Uint8Array)[] = [];
    for (let i = 0; i < encoders.length; i++) {
      const value = row[i];
      if (value !== null && value !== undefined) parts.push((encoders[i] as ValueBytes)(value));
    }
    if (nullable.length > 0) parts.push(nullMap(row));
    return sha1(joinBytes(parts));
  };
}

function joinBytes(parts: readonly (string | Uint8Array)[]): Buffer {
  const separator = Buffer.from("#");
  const buffers: Uint8Array[] = [];
  for (const [index, part] of parts.entries()) {
    if (index > 0) buffers.push(separator);
    buffers.push(typeof part === "string" ? Buffer.from(part) : part);
  }
  return Buffer.concat(buffers);
}
