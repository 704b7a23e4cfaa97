import { InvalidInputError } from "../errors";
import { isIdentifier } from "./identifier";
import type { LogicalType } from "./logical-type";

/** One column of a source table, as information_schema describes it. */
export interface SourceColumn {
  readonly name: string;
  /** information_schema DATA_TYPE, lower case (`datetime`, `bigint`, ...). */
  readonly dataType: string;
  /** information_schema COLUMN_TYPE (`bigint(20) unsigned`, `enum('a','b')`, ...). */
  readonly columnType: string;
  readonly nullable: boolean;
  readonly logicalType: LogicalType;
  /** information_schema CHARACTER_SET_NAME of a text column (`utf8mb4`, `latin1`, ...); absent otherwise or when unknown. */
  readonly characterSet?: string;
}

/** A source table: columns in ordinal order, its primary key and which columns lead an index. */
export interface TableSchema {
  readonly name: string;
  readonly columns: readonly SourceColumn[];
  /** Primary key columns in key order; empty when the table has none. */
  readonly primaryKey: readonly string[];
  /** Columns that are the first column of at least one index. */
  readonly indexLeadingColumns: readonly string[];
}

/** A row in canonical values, positionally matching `TableSchema.columns`. */
export type Row = readonly unknown[];

/** The single integer primary key column, when the table has exactly one; key figures need it. */
export function integerKeyColumn(schema: TableSchema): SourceColumn | undefined {
  if (schema.primaryKey.length !== 1) return undefined;
  const column = schema.columns.find((c) => c.name === schema.primaryKey[0]);
  const kind = column?.logicalType.kind;
  return kind === "int32" || kind === "int64" || kind === "uint64" ? column : undefined;
}

/**
 * The primary key's columns, in key order, when each is an integer, DATE or
 * DATETIME column (an id and a partition column, say): rows can then be read
 * in key order in slices, each starting after the key where the last ended.
 */
export function sliceableKey(schema: TableSchema): readonly SourceColumn[] | undefined {
  const columns = schema.primaryKey.map((name) => schema.columns.find((c) => c.name === name));
  const sliceable = (column: SourceColumn | undefined): column is SourceColumn =>
    ["int32", "int64", "uint64", "date"].includes(column?.logicalType.kind ?? "") ||
    (column?.logicalType.kind === "datetime" && column.logicalType.zone === "local");
  return columns.length > 0 && columns.every(sliceable) ? columns : undefined;
}

/** InvalidInputError on `field` unless `column` exists in `schema` and is DATETIME. */
export function requireDatetimeColumn(schema: TableSchema, column: string, field: string): void {
  if (!isIdentifier(column)) throw new InvalidInputError(field, `"${column}" is not a valid column name`);
  const found = schema.columns.find((c) => c.name === column);
  if (!found)
    throw new InvalidInputError(field, `column "${column}" does not exist in table "${schema.name}"`);
  // DATETIME only: the calendar day of a TIMESTAMP depends on the session's time zone.
  if (found.logicalType.kind !== "datetime" || found.logicalType.zone !== "local") {
    throw new InvalidInputError(
      field,
      `column "${column}" of table "${schema.name}" is ${found.columnType.toUpperCase()}, not DATETIME`,
    );
  }
}
