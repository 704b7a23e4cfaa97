import type { LogicalType, TableSchema } from "@table-archiver/core";

/**
 * The source schema the synthetic benches feed their warehouses: the same
 * eight mixed columns as the MySQL bench table (bench-table.ts).
 */
export function syntheticSchema(options: { fractionDigits: number }): TableSchema {
  const column = (name: string, logicalType: LogicalType) => ({
    name,
    dataType: logicalType.kind,
    columnType: logicalType.kind,
    nullable: true,
    logicalType,
  });
  return {
    name: "bench_orders",
    primaryKey: ["id"],
    indexLeadingColumns: ["id", "created_at"],
    columns: [
      column("id", { kind: "uint64" }),
      column("created_at", { kind: "datetime", fractionDigits: options.fractionDigits, zone: "local" }),
      column("user_id", { kind: "int32", unsigned: false, bits: 32 }),
      column("name", { kind: "string" }),
      column("amount", { kind: "decimal", precision: 12, scale: 2 }),
      column("score", { kind: "float64" }),
      column("flag", { kind: "int32", unsigned: false, bits: 8 }),
      column("payload", { kind: "json" }),
    ],
  };
}

export const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/** Flat copies of strings, as a driver decoding the wire makes them (template literals make ropes). */
export const flat = (texts: string[]) => JSON.parse(JSON.stringify(texts)) as string[];
