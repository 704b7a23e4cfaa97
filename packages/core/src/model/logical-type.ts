/**
 * The warehouse-neutral type of a source column. Each warehouse adapter maps a
 * logical type to its own column type; the source adapter produces the
 * canonical value of each logical type. docs/type-mapping.md is the table.
 *
 * Canonical values (null is always allowed):
 * - int32: number (TINYINT..INT signed or unsigned, MEDIUMINT, YEAR)
 * - int64, uint64: decimal string (BIGINT, BIGINT UNSIGNED)
 * - decimal: exact decimal string, as MySQL prints it (DECIMAL(p,s))
 * - float32, float64: number
 * - datetime: `YYYY-MM-DD HH:MM:SS[.ffffff]` (DATETIME, TIMESTAMP read in UTC); zero dates become null
 * - date: `YYYY-MM-DD`; zero dates become null
 * - time: `[-]H+:MM:SS[.ffffff]` (MySQL TIME, -838:59:59 to 838:59:59)
 * - string: text (CHAR, VARCHAR, TEXT family, ENUM, SET), utf8mb4
 * - json: the JSON document as text
 * - bytes: Uint8Array (BINARY, VARBINARY, BLOB family)
 * - bit: decimal string of the unsigned value (BIT(1..64))
 * - geometry: Uint8Array holding the WKB (spatial types)
 */
export type LogicalType =
  | { readonly kind: "int32"; readonly unsigned: boolean; readonly bits: 8 | 16 | 24 | 32 }
  | { readonly kind: "int64" }
  | { readonly kind: "uint64" }
  | { readonly kind: "decimal"; readonly precision: number; readonly scale: number }
  | { readonly kind: "float32" }
  | { readonly kind: "float64" }
  | { readonly kind: "datetime"; readonly fractionDigits: number; readonly zone: "local" | "utc" }
  | { readonly kind: "date" }
  | { readonly kind: "time"; readonly fractionDigits: number }
  | { readonly kind: "year" }
  | { readonly kind: "string" }
  | { readonly kind: "json" }
  | { readonly kind: "bytes" }
  | { readonly kind: "bit"; readonly width: number }
  | { readonly kind: "geometry" };
