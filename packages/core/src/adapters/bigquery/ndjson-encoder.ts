import { RefusalError } from "../../errors";
import type { LogicalType } from "../../model/logical-type";
import type { Row, SourceColumn } from "../../model/table-schema";

type ValueEncoder = (value: unknown) => string | undefined;

const INTEGER_TEXT = /^-?\d+$/;
const DECIMAL_TEXT = /^-?\d+(?:\.\d+)?$/;
// Year 0000 is a zero date that should have become NULL; BigQuery has no such day.
const DATE_TEXT = /^(?!0000)\d{4}-\d{2}-\d{2}$/;
const DATETIME_TEXT = /^(?!0000)\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,6})?$/;
const TIME_TEXT = /^-?\d+:\d{2}:\d{2}(?:\.\d{1,6})?$/;

/**
 * Builds the encoder of a table's rows into newline-delimited JSON for a
 * BigQuery load job: one object per row, keys in column order, `\n` after
 * every row. Values are written so BigQuery stores them exactly (see
 * bigQueryType): 64-bit integers, decimals and BIT values as JSON strings
 * (JSON numbers beyond 2^53 would be rounded), TIMESTAMP with an explicit UTC
 * offset, JSON documents embedded as they are, bytes and WKB in base64, NULL as
 * null. A value that is not the canonical value of its column throws
 * RefusalError naming the column, so a bad value never reaches the load.
 *
 * In a JSON column SQL NULL leaves the key out and the JSON document `null`
 * is written as `null`: the only way NDJSON can tell the two apart.
 */
export function createNdjsonEncoder(
  table: string,
  columns: readonly SourceColumn[],
): (rows: readonly Row[]) => string {
  const count = columns.length;
  const keys = columns.map((column) => `${JSON.stringify(column.name)}:`);
  const encoders = columns.map((column) => valueEncoder(column.logicalType));
  // SQL NULL in a JSON column leaves the key out, so that `null` can mean the JSON document null.
  const omitNull = columns.map((column) => column.logicalType.kind === "json");
  const names = columns.map((column) => column.name);
  return (rows) => {
    let out = "";
    for (const row of rows) {
      if (row.length !== count) {
        throw new RefusalError(`${table}: a row has ${row.length} values but the table has ${count} columns`);
      }
      let line = "";
      for (let index = 0; index < count; index++) {
        const value = row[index];
        let text: string | undefined = "null";
        if (value !== null && value !== undefined) text = (encoders[index] as ValueEncoder)(value);
        else if (omitNull[index]) continue;
        if (text === undefined) throw badValue(table, names[index] as string, value);
        line += (line === "" ? "{" : ",") + (keys[index] as string) + text;
      }
      out += line === "" ? "{}\n" : `${line}}\n`;
    }
    return out;
  };
}

function badValue(table: string, column: string, value: unknown): RefusalError {
  const shown = value instanceof Uint8Array ? `${value.byteLength} bytes` : String(value).slice(0, 80);
  return new RefusalError(
    `${table}.${column}: ${typeof value} value "${shown}" is not the canonical value of its column type`,
  );
}

function valueEncoder(type: LogicalType): ValueEncoder {
  switch (type.kind) {
    case "int32":
    case "year":
      return (value) => (Number.isInteger(value) ? String(value) : undefined);
    case "float32":
    case "float64":
      return encodeFloat;
    case "int64":
    case "uint64":
    case "bit":
      return encodeIntegerText;
    case "decimal":
      return (value) => (typeof value === "string" && DECIMAL_TEXT.test(value) ? `"${value}"` : undefined);
    case "datetime":
      // TIMESTAMP values are read in UTC; the offset keeps BigQuery from guessing.
      return type.zone === "utc"
        ? (value) => (isText(value, DATETIME_TEXT) ? `"${value}+00:00"` : undefined)
        : (value) => (isText(value, DATETIME_TEXT) ? `"${value}"` : undefined);
    case "date":
      return (value) => (isText(value, DATE_TEXT) ? `"${value}"` : undefined);
    case "time":
      return (value) => (isText(value, TIME_TEXT) ? `"${value}"` : undefined);
    case "string":
      return (value) => (typeof value === "string" ? JSON.stringify(value) : undefined);
    case "json":
      return encodeJsonDocument;
    case "bytes":
    case "geometry":
      return encodeBytes;
  }
}

function isText(value: unknown, pattern: RegExp): boolean {
  return typeof value === "string" && pattern.test(value);
}

function encodeFloat(value: unknown): string | undefined {
  if (typeof value !== "number" || !Number.isFinite(value)) return undefined;
  // String(-0) is "0"; MySQL keeps the sign of a negative zero DOUBLE.
  return Object.is(value, -0) ? "-0" : String(value);
}

function encodeIntegerText(value: unknown): string | undefined {
  if (typeof value === "string") return INTEGER_TEXT.test(value) ? `"${value}"` : undefined;
  if (typeof value === "bigint" || Number.isSafeInteger(value)) return `"${String(value)}"`;
  return undefined;
}

/**
 * A JSON column loads the raw JSON value in its place, so the original text
 * is written and big numbers keep every digit. The text is scanned (not
 * parsed: this runs once per row) to prove it is one value that cannot spill
 * into other columns: brackets balance, strings close and hold no raw control
 * characters, and nothing outside them separates values. Anything else wrong
 * inside the value fails BigQuery's own parse and so the whole load. A valid
 * document's raw line breaks can only be whitespace between tokens.
 */
function encodeJsonDocument(value: unknown): string | undefined {
  if (typeof value !== "string" || !isOneJsonValue(value)) return undefined;
  return value.includes("\n") || value.includes("\r") ? value.replace(/[\r\n]/g, " ") : value;
}

function isOneJsonValue(text: string): boolean {
  let depth = 0;
  let inString = false;
  let content = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      // A backslash escapes the next character; a quote ends the string.
      if (code === 92) index++;
      else if (code === 34) inString = false;
      else if (code < 32) return false;
      continue;
    }
    switch (code) {
      case 9:
      case 10:
      case 13:
      case 32:
        continue;
      case 34:
        inString = true;
        break;
      case 91: // [
      case 123: // {
        depth++;
        break;
      case 93: // ]
      case 125: // }
        if (--depth < 0) return false;
        break;
      case 44: // ,
      case 58: // :
        if (depth === 0) return false;
    }
    content = true;
  }
  return content && depth === 0 && !inString;
}

function encodeBytes(value: unknown): string | undefined {
  if (!(value instanceof Uint8Array)) return undefined;
  const buffer = Buffer.isBuffer(value)
    ? value
    : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  return `"${buffer.toString("base64")}"`;
}
