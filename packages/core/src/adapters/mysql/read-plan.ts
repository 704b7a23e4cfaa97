import type { SourceColumn, TableSchema } from "../../model/table-schema";
import { toLogicalType } from "./mysql-logical-type";
import { quoteIdentifier } from "./quote-identifier";

/** How to read a table's rows as canonical values. */
export interface ReadPlan {
  /** The SELECT list, one expression per schema column, in schema order. */
  readonly selectList: string;
  /** Positions of DATE/DATETIME/TIMESTAMP columns, the only ones that can hold zero dates. */
  readonly zeroDateColumns: readonly number[];
  /** Positions of FLOAT/DOUBLE columns, read as the server's text (see selectExpression) and made numbers by the reader. */
  readonly floatColumns: readonly number[];
}

/**
 * Most columns arrive canonical with the pool's options (see createMysqlPool);
 * the rest get a select expression:
 * - float32, float64: as the text of a DOUBLE (float32 widened first, because
 *   MariaDB prints FLOAT with 6 significant digits: 123456.789 reads "123457";
 *   the double holds the stored float exactly), made a number by the reader;
 * - geometry: ST_AsBinary, the WKB (mysql2 would otherwise parse it into objects);
 * - bit: the unsigned value as decimal text;
 * - a type without a mapping (MariaDB INET6, UUID, ...): its text in utf8mb4.
 */
export function readPlan(schema: TableSchema): ReadPlan {
  let plan = plans.get(schema);
  if (!plan) {
    plan = buildReadPlan(schema);
    plans.set(schema, plan);
  }
  return plan;
}

/** Schemas are immutable and a described table keeps its schema object, so each is planned once. */
const plans = new WeakMap<TableSchema, ReadPlan>();

function buildReadPlan(schema: TableSchema): ReadPlan {
  const zeroDateColumns: number[] = [];
  const floatColumns: number[] = [];
  const expressions = schema.columns.map((column, index) => {
    const kind = column.logicalType.kind;
    if (kind === "datetime" || kind === "date") zeroDateColumns.push(index);
    if (isFloat(column)) floatColumns.push(index);
    return selectExpression(column);
  });
  return { selectList: expressions.join(", "), zeroDateColumns, floatColumns };
}

/**
 * A float is selected as the text the server prints for it (the same text
 * it sends for a DOUBLE column, and the one its row hash is computed over),
 * so the reader can hash the row exactly as the server would (see
 * clientRowHasher) and then make the text a number: the server prints the
 * shortest digits that read back as the same double, so Number() restores it.
 */
function selectExpression(column: SourceColumn): string {
  const name = quoteIdentifier(column.name);
  const value = valueExpression(column);
  if (isFloat(column)) return `CAST(${value} AS CHAR) AS ${name}`;
  return value === name ? name : `${value} AS ${name}`;
}

/** The expression that reads `column` as its canonical value (see readPlan), without an alias. */
export function valueExpression(column: SourceColumn): string {
  const name = quoteIdentifier(column.name);
  switch (column.logicalType.kind) {
    case "float32":
      return `CAST(${name} AS DOUBLE)`;
    case "geometry":
      return `ST_AsBinary(${name})`;
    case "bit":
      // CAST AS UNSIGNED alone comes back as a small integer type for narrow BITs.
      return `CAST(CAST(${name} AS UNSIGNED) AS CHAR)`;
    case "string":
      return isUnmapped(column) ? `CAST(${name} AS CHAR CHARACTER SET utf8mb4)` : name;
    default:
      return name;
  }
}

function isFloat(column: SourceColumn): boolean {
  return column.logicalType.kind === "float32" || column.logicalType.kind === "float64";
}

/** A column the archiver has no type for (MariaDB INET6, UUID, ...), read as its utf8mb4 text. */
export function isUnmapped(column: SourceColumn): boolean {
  const facts = {
    dataType: column.dataType,
    columnType: column.columnType,
    numericPrecision: null,
    numericScale: null,
    datetimePrecision: null,
  };
  return toLogicalType(facts) === undefined;
}
