import { InvalidInputError } from "../../errors";
import type { LogicalType } from "../../model/logical-type";
import type { SourceColumn } from "../../model/table-schema";

/** A BigQuery column type, spelled the way the tables API returns it (INTEGER, not INT64). */
export type BigQueryType =
  | "INTEGER"
  | "FLOAT"
  | "NUMERIC"
  | "BIGNUMERIC"
  | "STRING"
  | "BYTES"
  | "DATE"
  | "DATETIME"
  | "TIMESTAMP"
  | "JSON";

/** One column of a table schema as the BigQuery API writes it. */
export interface BigQueryField {
  readonly name: string;
  readonly type: string;
  readonly mode?: string;
  readonly description?: string;
}

/**
 * The BigQuery column type of a logical type; docs/type-mapping.md is the table.
 * Every mapping keeps the value exactly:
 * - DECIMAL(p,s) is NUMERIC when p−s ≤ 29 and s ≤ 9 (NUMERIC's range), else
 *   BIGNUMERIC when p−s ≤ 38 (s ≤ 30 always holds in MySQL), else STRING.
 * - BIGINT UNSIGNED and BIT(64) exceed INT64, so they are NUMERIC (29 integer digits).
 * - TIME spans −838:59:59 to 838:59:59, which BigQuery's TIME cannot hold; the
 *   MySQL text is kept as STRING (INTERVAL is not loadable from JSON everywhere
 *   and would re-spell the value).
 * - Spatial values are the MySQL WKB in BYTES: GEOGRAPHY would reproject anything
 *   that is not WGS84 and drop the SRID.
 * - Every column is NULLABLE: zero dates arrive as NULL even in NOT NULL columns.
 */
export function bigQueryType(type: LogicalType): BigQueryType {
  switch (type.kind) {
    case "int32":
    case "int64":
    case "year":
      return "INTEGER";
    case "uint64":
      return "NUMERIC";
    case "decimal":
      return decimalType(type.precision, type.scale);
    case "float32":
    case "float64":
      return "FLOAT";
    case "datetime":
      return type.zone === "utc" ? "TIMESTAMP" : "DATETIME";
    case "date":
      return "DATE";
    case "time":
    case "string":
      return "STRING";
    case "json":
      return "JSON";
    case "bytes":
    case "geometry":
      return "BYTES";
    case "bit":
      return type.width < 64 ? "INTEGER" : "NUMERIC";
  }
}

function decimalType(precision: number, scale: number): BigQueryType {
  const integerDigits = precision - scale;
  if (integerDigits <= 29 && scale <= 9) return "NUMERIC";
  if (integerDigits <= 38 && scale <= 38) return "BIGNUMERIC";
  return "STRING";
}

/** Names BigQuery keeps for itself; a column may not start with them (case-insensitive). */
const RESERVED_PREFIXES = ["_table_", "_file_", "_partition", "_row_timestamp", "__root__", "_colidentifier"];

/** The BigQuery schema of the source columns, in source order. */
export function bigQueryFields(table: string, columns: readonly SourceColumn[]): BigQueryField[] {
  return columns.map((column) => {
    checkColumnName(table, column.name);
    return {
      name: column.name,
      type: bigQueryType(column.logicalType),
      mode: "NULLABLE",
      description: `MySQL ${column.columnType}`,
    };
  });
}

function checkColumnName(table: string, name: string): void {
  const lower = name.toLowerCase();
  if (!/^[A-Za-z0-9_]+$/.test(name) || RESERVED_PREFIXES.some((prefix) => lower.startsWith(prefix))) {
    throw new InvalidInputError(
      "table",
      `column ${table}.${name} cannot be a BigQuery column name (letters, digits and _ only, no reserved prefix such as _PARTITION)`,
    );
  }
}

const SPELLINGS: Readonly<Record<string, string>> = {
  INT64: "INTEGER",
  FLOAT64: "FLOAT",
  DECIMAL: "NUMERIC",
  BIGDECIMAL: "BIGNUMERIC",
  BOOL: "BOOLEAN",
};

function canonicalType(type: string): string {
  const upper = type.toUpperCase();
  return SPELLINGS[upper] ?? upper;
}

/** Column types that can hold every value of a narrower type without change. */
const WIDER: Readonly<Record<string, readonly string[]>> = {
  INTEGER: ["NUMERIC", "BIGNUMERIC"],
  NUMERIC: ["BIGNUMERIC"],
};

export interface SchemaPlan {
  /** The schema loads send: the table's columns as they are, then the added ones. */
  readonly fields: readonly BigQueryField[];
  readonly added: readonly BigQueryField[];
  /** One sentence per column the table cannot take; empty when compatible. */
  readonly conflicts: readonly string[];
}

/**
 * Compares the destination's schema with the one the source needs. New source
 * columns are added; a column whose existing type cannot hold the source's
 * values exactly is a conflict. Columns only the table has stay (they load as NULL).
 */
export function planSchema(existing: readonly BigQueryField[], wanted: readonly BigQueryField[]): SchemaPlan {
  const byName = new Map(existing.map((field) => [field.name.toLowerCase(), field]));
  const added: BigQueryField[] = [];
  const conflicts: string[] = [];
  for (const field of wanted) {
    const current = byName.get(field.name.toLowerCase());
    if (!current) {
      added.push(field);
      continue;
    }
    const have = canonicalType(current.type);
    if (current.mode === "REPEATED") {
      conflicts.push(`${current.name} is REPEATED in BigQuery; the archiver loads one value per column`);
    } else if (have !== field.type && !WIDER[field.type]?.includes(have)) {
      conflicts.push(`${current.name} is ${have} in BigQuery but the source now needs ${field.type}`);
    }
  }
  return { fields: [...existing, ...added], added, conflicts };
}
