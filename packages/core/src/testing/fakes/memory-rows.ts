import { createHash } from "node:crypto";
import { InvalidInputError } from "../../errors";
import { type CalendarDay, isCalendarDay } from "../../model/calendar-day";
import type { DayFigures } from "../../model/day-figures";
import { integerKeyColumn, type Row, type TableSchema } from "../../model/table-schema";

// Row arithmetic shared by the in-memory source and its day deleter.

/**
 * The day a filter value names: its `YYYY-MM-DD` part, or undefined for NULL,
 * zero dates (`0000-00-00 ...`) and partial zero dates (`2020-05-00 ...`),
 * which belong to no day. The same rule as the MySQL day condition, by text.
 */
export function dayOfValue(value: unknown): CalendarDay | undefined {
  if (typeof value !== "string") return undefined;
  const day = value.slice(0, 10);
  return isCalendarDay(day) ? day : undefined;
}

/** A DATE or DATETIME text that names no real day (`0000-00-00`, `2020-00-15`, `2020-05-00 10:00:00`). */
export function isZeroDateText(value: unknown): boolean {
  return typeof value === "string" && /^\d{4}-\d{2}-\d{2}/.test(value) && dayOfValue(value) === undefined;
}

/** A column's position; InvalidInputError on `column` when the schema has no such column. */
export function columnIndex(schema: TableSchema, column: string): number {
  const index = schema.columns.findIndex((c) => c.name === column);
  if (index < 0) {
    throw new InvalidInputError("column", `column "${column}" does not exist in table "${schema.name}"`);
  }
  return index;
}

/**
 * The fake's 64-bit hash of one row: the first 8 bytes of SHA-256 over every
 * column's name and value. It is not MySQL's row hash; it only has to be the
 * same wherever the fake computes it (stream, figures, chunks).
 */
function rowHash(schema: TableSchema, row: Row): bigint {
  const text = JSON.stringify(
    schema.columns.map((column, index) => [column.name, row[index]]),
    (_, value) => (value instanceof Uint8Array ? { bytes: Buffer.from(value).toString("hex") } : value),
  );
  return BigInt(`0x${createHash("sha256").update(text).digest("hex").slice(0, 16)}`);
}

/** The content fingerprint of `rows`: the sum of their row hashes, as decimal text ("0" for none). */
export function fingerprintOf(schema: TableSchema, rows: readonly Row[]): string {
  let sum = 0n;
  for (const row of rows) sum += rowHash(schema, row);
  return sum.toString();
}

/** The key of a row as an integer, for sums and ordering. */
export function keyOf(row: Row, index: number): bigint {
  return BigInt(String(row[index]));
}

/** Figures of a day's rows: count, fingerprint and, for a single integer key, its count, sum, min and max. */
export function figuresOf(schema: TableSchema, rows: readonly Row[]): DayFigures {
  const figures = { rows: rows.length, fingerprint: fingerprintOf(schema, rows) };
  const key = integerKeyColumn(schema);
  if (!key) return figures;
  const index = schema.columns.indexOf(key);
  const keys = rows.map((row) => keyOf(row, index));
  const min = keys.reduce<bigint | undefined>((a, b) => (a === undefined || b < a ? b : a), undefined);
  const max = keys.reduce<bigint | undefined>((a, b) => (a === undefined || b > a ? b : a), undefined);
  return {
    ...figures,
    key: {
      column: key.name,
      count: keys.length,
      sum: keys.reduce((a, b) => a + b, 0n).toString(),
      min: min?.toString() ?? "",
      max: max?.toString() ?? "",
    },
  };
}

/** Approximate bytes of a row as a client would receive it. */
export function rowBytes(row: Row): number {
  let bytes = 0;
  for (const value of row) {
    if (value === null || value === undefined) bytes += 1;
    else if (value instanceof Uint8Array) bytes += value.byteLength;
    else bytes += Buffer.byteLength(String(value));
  }
  return bytes;
}
