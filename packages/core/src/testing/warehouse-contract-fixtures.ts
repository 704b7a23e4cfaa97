import type { CalendarDay } from "../model/calendar-day";
import type { LogicalType } from "../model/logical-type";
import type { Row, SourceColumn, TableSchema } from "../model/table-schema";

/** Schemas and canonical rows for the warehouse contract suite. */

function column(name: string, logicalType: LogicalType, columnType: string): SourceColumn {
  return { name, dataType: columnType.replace(/\(.*$/, ""), columnType, nullable: true, logicalType };
}

/** A small keyed table: id BIGINT UNSIGNED primary key, created_at DATETIME(6), note, amount. */
export function keyedSchema(
  options: { extraColumn?: boolean; noteKind?: "string" | "datetime" } = {},
): TableSchema {
  const note: LogicalType =
    options.noteKind === "datetime"
      ? { kind: "datetime", fractionDigits: 0, zone: "local" }
      : { kind: "string" };
  const columns = [
    column("id", { kind: "uint64" }, "bigint unsigned"),
    column("created_at", { kind: "datetime", fractionDigits: 6, zone: "local" }, "datetime(6)"),
    column("note", note, options.noteKind === "datetime" ? "datetime" : "varchar(64)"),
    column("amount", { kind: "decimal", precision: 12, scale: 2 }, "decimal(12,2)"),
  ];
  if (options.extraColumn) columns.push(column("comment", { kind: "string" }, "text"));
  return { name: "orders", columns, primaryKey: ["id"], indexLeadingColumns: ["id", "created_at"] };
}

/**
 * Rows of `keyedSchema` on `day`, one per id (give ids in ascending order: the
 * contract reads days back ordered by id). `times` sets each row's time of day.
 */
export function keyedRows(
  day: CalendarDay,
  ids: readonly (number | string)[],
  options: { extraColumn?: boolean; times?: readonly string[] } = {},
): Row[] {
  return ids.map((id, index) => {
    const time = options.times?.[index] ?? `12:${String(index % 60).padStart(2, "0")}:00`;
    const [clock, fraction = ""] = time.split(".");
    const row: unknown[] = [
      String(id),
      `${day} ${clock}.${fraction.padEnd(6, "0")}`,
      `note ${id}`,
      `${BigInt(id) % 1000n}.50`,
    ];
    if (options.extraColumn) row.push(`comment for ${id}`);
    return row;
  });
}

/** Little-endian WKB of POINT(x y). */
function wkbPoint(x: number, y: number): Uint8Array {
  const bytes = new Uint8Array(21);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, 1);
  view.setUint32(1, 1, true);
  view.setFloat64(5, x, true);
  view.setFloat64(13, y, true);
  return bytes;
}

/** One column of every logical type; the filter column is named `at`, a reserved word in some warehouses. */
export function allTypesSchema(): TableSchema {
  const columns = [
    column("id", { kind: "uint64" }, "bigint unsigned"),
    column("at", { kind: "datetime", fractionDigits: 6, zone: "local" }, "datetime(6)"),
    column("i8", { kind: "int32", unsigned: false, bits: 8 }, "tinyint"),
    column("u8", { kind: "int32", unsigned: true, bits: 8 }, "tinyint unsigned"),
    column("i16", { kind: "int32", unsigned: false, bits: 16 }, "smallint"),
    column("u16", { kind: "int32", unsigned: true, bits: 16 }, "smallint unsigned"),
    column("i24", { kind: "int32", unsigned: false, bits: 24 }, "mediumint"),
    column("u24", { kind: "int32", unsigned: true, bits: 24 }, "mediumint unsigned"),
    column("i32", { kind: "int32", unsigned: false, bits: 32 }, "int"),
    column("u32", { kind: "int32", unsigned: true, bits: 32 }, "int unsigned"),
    column("i64", { kind: "int64" }, "bigint"),
    column("dec", { kind: "decimal", precision: 12, scale: 2 }, "decimal(12,2)"),
    column("dec0", { kind: "decimal", precision: 20, scale: 0 }, "decimal(20,0)"),
    column("dec38", { kind: "decimal", precision: 38, scale: 10 }, "decimal(38,10)"),
    column("dec65", { kind: "decimal", precision: 65, scale: 30 }, "decimal(65,30)"),
    column("f32", { kind: "float32" }, "float"),
    column("f64", { kind: "float64" }, "double"),
    column("ts", { kind: "datetime", fractionDigits: 6, zone: "utc" }, "timestamp(6)"),
    column("dt0", { kind: "datetime", fractionDigits: 0, zone: "local" }, "datetime"),
    column("d", { kind: "date" }, "date"),
    column("t", { kind: "time", fractionDigits: 6 }, "time(6)"),
    column("t0", { kind: "time", fractionDigits: 0 }, "time"),
    column("y", { kind: "year" }, "year"),
    column("s", { kind: "string" }, "varchar(255)"),
    column("j", { kind: "json" }, "json"),
    column("b", { kind: "bytes" }, "varbinary(255)"),
    column("bits", { kind: "bit", width: 64 }, "bit(64)"),
    column("g", { kind: "geometry" }, "point"),
  ];
  return { name: "all_types", columns, primaryKey: ["id"], indexLeadingColumns: ["id", "at"] };
}

const nines = (count: number) => "9".repeat(count);

/** Four rows of `allTypesSchema`: minimums, ordinary values, NULL everywhere it may be, maximums. */
export function allTypesRows(day: CalendarDay): Row[] {
  const everyByte = Uint8Array.from({ length: 256 }, (_, i) => i);
  const minimums = [
    "1",
    `${day} 00:00:00.000000`,
    -128,
    0,
    -32768,
    0,
    -8388608,
    0,
    -2147483648,
    0,
    "-9223372036854775808",
    "-9999999999.99",
    `-${nines(20)}`,
    `-${nines(28)}.${nines(10)}`,
    `-${nines(35)}.${nines(30)}`,
    -3.4028234663852886e38,
    -1.7976931348623157e308,
    "1970-01-01 00:00:01.000000",
    "1000-01-01 00:00:00",
    "1000-01-01",
    "-838:59:59.000000",
    "-838:59:59",
    1901,
    "",
    "{}",
    Uint8Array.of(0x00),
    "0",
    wkbPoint(0, 0),
  ];
  const ordinary = [
    "2",
    `${day} 12:00:00.500000`,
    0,
    1,
    -1,
    1,
    -1,
    1,
    -1,
    1,
    "0",
    "0.01",
    "0",
    "0.0000000001",
    `0.${"0".repeat(29)}1`,
    Math.fround(0.1),
    5e-324,
    "2024-05-06 12:34:56.000001",
    "2024-02-29 12:00:00",
    "2024-02-29",
    "-00:00:01.500000",
    "00:00:00",
    0,
    'tab\tquote"backslash\\newline\nNUL\u0000end',
    '{"a": [1, 2.5, "😀"], "b": null}',
    Uint8Array.of(0x00, 0xff, 0x7f, 0x80, 0x0a),
    "5",
    wkbPoint(-71.0589, 42.3601),
  ];
  const nulls = ["3", `${day} 12:00:01.000000`, ...Array.from({ length: minimums.length - 2 }, () => null)];
  const maximums = [
    "18446744073709551615",
    `${day} 23:59:59.999999`,
    127,
    255,
    32767,
    65535,
    8388607,
    16777215,
    2147483647,
    4294967295,
    "9223372036854775807",
    "9999999999.99",
    nines(20),
    `${nines(28)}.${nines(10)}`,
    `${nines(35)}.${nines(30)}`,
    3.4028234663852886e38,
    1.7976931348623157e308,
    "2038-01-19 03:14:07.999999",
    "9999-12-31 23:59:59",
    "9999-12-31",
    "838:59:59.000001",
    "838:59:59",
    2155,
    "utf8mb4 😀🎉 ñ 漢字",
    "null",
    everyByte,
    "18446744073709551615",
    wkbPoint(180, -90),
  ];
  return [minimums, ordinary, nulls, maximums];
}

/** Yields the first half of `rows` in one batch, then fails as a broken source would. */
export async function* failingHalfway(rows: readonly Row[]): AsyncGenerator<readonly Row[]> {
  yield rows.slice(0, Math.ceil(rows.length / 2));
  throw new Error("source connection lost");
}

/** The exact sum of integer texts. */
export function sumOf(values: readonly (number | string)[]): string {
  return String(values.reduce<bigint>((sum, value) => sum + BigInt(value), 0n));
}
