import {
  DuckDBBlobValue,
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBIntervalValue,
  DuckDBTimestampValue,
  type DuckDBType,
  DuckDBTypeId,
  type DuckDBValue,
} from "@duckdb/node-api";
import type { LogicalType } from "../../model/logical-type";
import {
  CanonicalValueError,
  parseDateDays,
  parseDateTimeMicros,
  parseDecimalScaled,
  parseIntegerText,
  parseTimeMicros,
} from "./canonical-values";

/** DuckDB's widest DECIMAL; wider MySQL decimals are kept as exact text. */
const DUCKDB_MAX_DECIMAL_PRECISION = 38;

const INT32_TYPES = {
  8: ["TINYINT", "UTINYINT"],
  16: ["SMALLINT", "USMALLINT"],
  24: ["INTEGER", "UINTEGER"],
  32: ["INTEGER", "UINTEGER"],
} as const;

/**
 * The DuckDB column type for a logical type, spelled as duckdb_columns()
 * reports it. docs/type-mapping.md is the table this implements.
 */
export function duckDbColumnType(type: LogicalType, options: { readonly json: boolean }): string {
  switch (type.kind) {
    case "int32":
      return INT32_TYPES[type.bits][type.unsigned ? 1 : 0];
    case "int64":
      return "BIGINT";
    case "uint64":
    case "bit":
      return "UBIGINT";
    case "decimal":
      return type.precision <= DUCKDB_MAX_DECIMAL_PRECISION
        ? `DECIMAL(${Math.max(type.precision, 1)},${type.scale})`
        : "VARCHAR";
    case "float32":
      return "FLOAT";
    case "float64":
      return "DOUBLE";
    case "datetime":
      return "TIMESTAMP";
    case "date":
      return "DATE";
    case "time":
      return "INTERVAL";
    case "year":
      return "USMALLINT";
    case "string":
      return "VARCHAR";
    case "json":
      return options.json ? "JSON" : "VARCHAR";
    case "bytes":
    case "geometry":
      return "BLOB";
  }
}

/**
 * What to do when a warehouse column exists with type `existing` and the
 * source now maps to `wanted`:
 * - keep: the existing column already holds every wanted value exactly;
 * - widen: `ALTER COLUMN ... TYPE wanted` keeps every stored value exactly;
 * - incompatible: neither holds the other; a person must decide.
 */
export type ColumnTypeChange = "keep" | "widen" | "incompatible";

const INTEGER_RANGES: Record<string, readonly [bigint, bigint]> = {
  TINYINT: [-(2n ** 7n), 2n ** 7n - 1n],
  UTINYINT: [0n, 2n ** 8n - 1n],
  SMALLINT: [-(2n ** 15n), 2n ** 15n - 1n],
  USMALLINT: [0n, 2n ** 16n - 1n],
  INTEGER: [-(2n ** 31n), 2n ** 31n - 1n],
  UINTEGER: [0n, 2n ** 32n - 1n],
  BIGINT: [-(2n ** 63n), 2n ** 63n - 1n],
  UBIGINT: [0n, 2n ** 64n - 1n],
  HUGEINT: [-(2n ** 127n), 2n ** 127n - 1n],
};

interface DecimalShape {
  readonly integerDigits: number;
  readonly scale: number;
}

function decimalShape(type: string): DecimalShape | undefined {
  const match = /^DECIMAL\((\d+),(\d+)\)$/.exec(type);
  if (!match) return undefined;
  const [precision, scale] = [Number(match[1]), Number(match[2])];
  return { integerDigits: precision - scale, scale };
}

/** Does a column of type `outer` hold every value of type `inner` exactly? */
function holds(outer: string, inner: string): boolean {
  if (outer === inner) return true;
  const textual = new Set(["VARCHAR", "JSON"]);
  if (textual.has(outer) && textual.has(inner)) return true;
  const [outerRange, innerRange] = [INTEGER_RANGES[outer], INTEGER_RANGES[inner]];
  if (outerRange && innerRange) return outerRange[0] <= innerRange[0] && outerRange[1] >= innerRange[1];
  const [outerDecimal, innerDecimal] = [decimalShape(outer), decimalShape(inner)];
  if (outerDecimal && innerDecimal) {
    return (
      outerDecimal.integerDigits >= innerDecimal.integerDigits && outerDecimal.scale >= innerDecimal.scale
    );
  }
  if (outer === "DOUBLE" && inner === "FLOAT") return true;
  // Integers and decimals print as the exact text their canonical value is.
  return outer === "VARCHAR" && (innerRange !== undefined || innerDecimal !== undefined);
}

export function compareColumnTypes(existing: string, wanted: string): ColumnTypeChange {
  if (holds(existing, wanted)) return "keep";
  if (holds(wanted, existing)) return "widen";
  return "incompatible";
}

/**
 * Turns one non-null canonical value into what a DuckDB vector of the column's
 * type stores. Throws CanonicalValueError for a value of the wrong shape; the
 * vectors themselves refuse integers out of range.
 */
export type ValueEncoder = (value: unknown) => DuckDBValue;

function text(value: unknown): string {
  if (typeof value !== "string") throw new CanonicalValueError(`${describe(value)} is not text`);
  return value;
}

function numeric(value: unknown): number {
  if (typeof value !== "number") throw new CanonicalValueError(`${describe(value)} is not a number`);
  return value;
}

/** The source reads FLOAT as the stored float32 widened to a double; anything else would be rounded here. */
function float32(value: unknown): number {
  const number = numeric(value);
  if (Math.fround(number) !== number) {
    throw new CanonicalValueError(`${number} is not a float32 value (FLOAT would round it)`);
  }
  return number;
}

function integer(value: unknown): bigint {
  if (typeof value === "string") return parseIntegerText(value);
  if (typeof value === "bigint") return value;
  if (Number.isInteger(value)) return BigInt(value as number);
  throw new CanonicalValueError(`${describe(value)} is not an integer`);
}

function bytes(value: unknown): DuckDBBlobValue {
  if (!(value instanceof Uint8Array)) throw new CanonicalValueError(`${describe(value)} is not bytes`);
  return new DuckDBBlobValue(value);
}

function describe(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : `${typeof value} ${String(value)}`;
}

/**
 * Remembers the last value: rows arrive ordered by the filter column, so
 * neighbouring rows often share a timestamp or a date.
 */
function repeating(encode: ValueEncoder): ValueEncoder {
  let lastValue: unknown;
  let lastEncoded: DuckDBValue = null;
  return (value) => {
    if (value !== lastValue) {
      lastEncoded = encode(value);
      lastValue = value;
    }
    return lastEncoded;
  };
}

/** The encoder for a column of DuckDB type `type` (as the appender reports it). */
export function valueEncoder(type: DuckDBType): ValueEncoder {
  switch (type.typeId) {
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.UTINYINT:
    case DuckDBTypeId.USMALLINT:
    case DuckDBTypeId.UINTEGER:
    case DuckDBTypeId.DOUBLE:
      return numeric;
    case DuckDBTypeId.FLOAT:
      return float32;
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
      return integer;
    case DuckDBTypeId.DECIMAL: {
      const { width, scale } = type;
      return (value) => new DuckDBDecimalValue(parseDecimalScaled(text(value), width, scale), width, scale);
    }
    case DuckDBTypeId.TIMESTAMP:
      return repeating((value) => new DuckDBTimestampValue(parseDateTimeMicros(text(value))));
    case DuckDBTypeId.DATE:
      return repeating((value) => new DuckDBDateValue(parseDateDays(text(value))));
    case DuckDBTypeId.INTERVAL:
      return (value) => new DuckDBIntervalValue(0, 0, parseTimeMicros(text(value)));
    case DuckDBTypeId.VARCHAR:
      return text;
    case DuckDBTypeId.BLOB:
      return bytes;
    default:
      throw new CanonicalValueError(`the archiver does not write DuckDB columns of type ${type.toString()}`);
  }
}
