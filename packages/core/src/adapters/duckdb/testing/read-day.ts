import {
  DuckDBBlobValue,
  DuckDBDateValue,
  DuckDBIntervalValue,
  DuckDBTimestampValue,
  type DuckDBValue,
  quotedIdentifier,
} from "@duckdb/node-api";
import type { LogicalType } from "../../../model/logical-type";
import type { Row, TableSchema } from "../../../model/table-schema";
import type { WarehouseDay } from "../../../model/warehouse-day";
import { dayPredicate, qualifiedName } from "../duckdb-catalog";
import type { DuckDbWarehouse } from "../duckdb-warehouse";
import { formatDateTimeMicros, formatDays, formatTimeMicros } from "./canonical-text";

const MICROS_PER_DAY = 86_400_000_000n;

/**
 * The rows of one day, the source schema's columns in canonical values,
 * ordered by all columns from the first. For tests: it holds the whole day in
 * memory. It reads through the warehouse's own connection (an in-memory
 * warehouse shares its database with nobody else), as one of its operations.
 */
export function readDuckDbDay(
  warehouse: DuckDbWarehouse,
  { destination, filterColumn, day }: WarehouseDay,
  schema: TableSchema,
): Promise<Row[]> {
  return warehouse.withConnection("readDay", async (connection, catalog) => {
    const columns = schema.columns.map((column) => quotedIdentifier(column.name)).join(", ");
    const table = { catalog, dataset: destination.dataset, table: destination.table };
    const reader = await connection.runAndReadAll(
      `SELECT ${columns} FROM ${qualifiedName(table)} WHERE ${dayPredicate(filterColumn, day)} ORDER BY ALL`,
    );
    return reader
      .getRows()
      .map((row) => row.map((value, index) => toCanonical(value, schema.columns[index]?.logicalType)));
  });
}

/** A value as DuckDB returns it -> the canonical value of the column's logical type. */
function toCanonical(value: DuckDBValue, type: LogicalType | undefined): unknown {
  if (value === null || type === undefined) return value;
  switch (type.kind) {
    case "int32":
    case "year":
    case "float32":
      return Number(value);
    case "int64":
    case "uint64":
    case "bit":
    case "decimal":
      return String(value);
    case "datetime":
      return value instanceof DuckDBTimestampValue
        ? formatDateTimeMicros(value.micros, type.fractionDigits)
        : value;
    case "date":
      return value instanceof DuckDBDateValue ? formatDays(value.days) : value;
    case "time":
      return value instanceof DuckDBIntervalValue
        ? formatTimeMicros(BigInt(value.days) * MICROS_PER_DAY + value.micros, type.fractionDigits)
        : value;
    case "bytes":
    case "geometry":
      return value instanceof DuckDBBlobValue ? Uint8Array.from(value.bytes) : value;
    default:
      return value;
  }
}
