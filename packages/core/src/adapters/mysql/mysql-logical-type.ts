import type { LogicalType } from "../../model/logical-type";

/** The information_schema facts the type mapping reads. */
export interface ColumnTypeFacts {
  /** DATA_TYPE, any case. */
  readonly dataType: string;
  /** COLUMN_TYPE, any case (carries `unsigned` and BIT widths). */
  readonly columnType: string;
  readonly numericPrecision: number | null;
  readonly numericScale: number | null;
  readonly datetimePrecision: number | null;
}

const INT_BITS = { tinyint: 8, smallint: 16, mediumint: 24, int: 32, integer: 32 } as const;
const SPATIAL = new Set([
  "geometry",
  "point",
  "linestring",
  "polygon",
  "multipoint",
  "multilinestring",
  "multipolygon",
  "geometrycollection",
  "geomcollection",
]);
const STRING = new Set(["char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set"]);
const BYTES = new Set(["binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob"]);

/** Maps a MySQL/MariaDB column to its logical type, or undefined when the type is not supported. */
export function toLogicalType(facts: ColumnTypeFacts): LogicalType | undefined {
  const dataType = facts.dataType.toLowerCase();
  const columnType = facts.columnType.toLowerCase();
  const unsigned = /\bunsigned\b/.test(columnType);
  if (dataType in INT_BITS) {
    return { kind: "int32", unsigned, bits: INT_BITS[dataType as keyof typeof INT_BITS] };
  }
  if (dataType === "bigint") return unsigned ? { kind: "uint64" } : { kind: "int64" };
  if (dataType === "decimal" || dataType === "numeric") {
    return { kind: "decimal", precision: facts.numericPrecision ?? 10, scale: facts.numericScale ?? 0 };
  }
  if (dataType === "float") return { kind: "float32" };
  if (dataType === "double" || dataType === "real") return { kind: "float64" };
  if (dataType === "datetime" || dataType === "timestamp") {
    return {
      kind: "datetime",
      fractionDigits: facts.datetimePrecision ?? 0,
      zone: dataType === "timestamp" ? "utc" : "local",
    };
  }
  if (dataType === "date") return { kind: "date" };
  if (dataType === "time") return { kind: "time", fractionDigits: facts.datetimePrecision ?? 0 };
  if (dataType === "year") return { kind: "year" };
  if (dataType === "json") return { kind: "json" };
  if (STRING.has(dataType)) {
    // MariaDB reports JSON columns as longtext with a json_valid check; they stay text.
    return { kind: "string" };
  }
  if (BYTES.has(dataType)) return { kind: "bytes" };
  if (dataType === "bit") return { kind: "bit", width: facts.numericPrecision ?? bitWidth(columnType) };
  if (SPATIAL.has(dataType)) return { kind: "geometry" };
  return undefined;
}

function bitWidth(columnType: string): number {
  const match = /bit\((\d+)\)/.exec(columnType);
  return match ? Number(match[1]) : 1;
}
