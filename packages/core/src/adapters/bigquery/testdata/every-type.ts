import type { LogicalType } from "../../../model/logical-type";
import type { Row, SourceColumn, TableSchema } from "../../../model/table-schema";

const column = (name: string, columnType: string, logicalType: LogicalType): SourceColumn => ({
  name,
  dataType: columnType.replace(/\(.*$/, ""),
  columnType,
  nullable: name !== "id",
  logicalType,
});

/** A source table with one column of every logical type, edge values in `everyTypeRows`. */
export const everyTypeSchema: TableSchema = {
  name: "every_type",
  columns: [
    column("id", "bigint(20) unsigned", { kind: "uint64" }),
    column("created_at", "datetime(6)", { kind: "datetime", fractionDigits: 6, zone: "local" }),
    column("tiny", "tinyint(4)", { kind: "int32", unsigned: false, bits: 8 }),
    column("counter", "int(10) unsigned", { kind: "int32", unsigned: true, bits: 32 }),
    column("big", "bigint(20)", { kind: "int64" }),
    column("price", "decimal(12,2)", { kind: "decimal", precision: 12, scale: 2 }),
    column("wide", "decimal(65,30)", { kind: "decimal", precision: 65, scale: 30 }),
    column("huge", "decimal(65,0)", { kind: "decimal", precision: 65, scale: 0 }),
    column("ratio", "float", { kind: "float32" }),
    column("score", "double", { kind: "float64" }),
    column("updated_at", "timestamp", { kind: "datetime", fractionDigits: 0, zone: "utc" }),
    column("birthday", "date", { kind: "date" }),
    column("duration", "time(6)", { kind: "time", fractionDigits: 6 }),
    column("yr", "year(4)", { kind: "year" }),
    column("name", "varchar(64)", { kind: "string" }),
    column("doc", "json", { kind: "json" }),
    column("payload", "varbinary(16)", { kind: "bytes" }),
    column("flag", "bit(1)", { kind: "bit", width: 1 }),
    column("mask", "bit(64)", { kind: "bit", width: 64 }),
    column("shape", "point", { kind: "geometry" }),
  ],
  primaryKey: ["id"],
  indexLeadingColumns: ["id", "created_at"],
};

/** POINT(1 2) as little-endian WKB. */
const point = Uint8Array.from(Buffer.from("0101000000000000000000f03f0000000000000040", "hex"));

/**
 * Canonical values at the edges: UBIGINT and BIT(64) max, INT64 min, a
 * DECIMAL(65,30) and a DECIMAL(65,0) with every digit, -0, TIME at both
 * extremes, utf8mb4 with escapes, a JSON document with a number beyond 2^64,
 * raw bytes, and a row of NULLs (zero dates arrive as NULL).
 */
export const everyTypeRows: readonly Row[] = [
  [
    "18446744073709551615",
    "2024-01-31 23:59:59.999999",
    -128,
    4294967295,
    "-9223372036854775808",
    "-9999999999.99",
    "99999999999999999999999999999999999.999999999999999999999999999999",
    "-99999999999999999999999999999999999999999999999999999999999999999",
    1.5,
    1e-7,
    "2038-01-19 03:14:07",
    "1000-01-01",
    "-838:59:59.000000",
    1901,
    'naïve 😀 "q" \\ \n\t end',
    '{"a": 12345678901234567890, "b": [1, 2.50], "c": "x\\ny"}',
    Uint8Array.from([0, 255, 1, 2, 3]),
    "1",
    "18446744073709551615",
    point,
  ],
  [
    "1",
    "2024-01-31 00:00:00",
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    -0,
    null,
    null,
    "838:59:59.000000",
    null,
    null,
    null,
    null,
    null,
    null,
    null,
  ],
];
