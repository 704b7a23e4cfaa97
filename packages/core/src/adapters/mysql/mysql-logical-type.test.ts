import { describe, expect, it } from "vitest";
import { type ColumnTypeFacts, toLogicalType } from "./mysql-logical-type";

function facts(dataType: string, columnType: string, more: Partial<ColumnTypeFacts> = {}): ColumnTypeFacts {
  return {
    dataType,
    columnType,
    numericPrecision: null,
    numericScale: null,
    datetimePrecision: null,
    ...more,
  };
}

describe("toLogicalType", () => {
  it("reads signedness and width of integers from COLUMN_TYPE and DATA_TYPE, in any case", () => {
    expect(toLogicalType(facts("TINYINT", "tinyint(3) UNSIGNED"))).toEqual({
      kind: "int32",
      unsigned: true,
      bits: 8,
    });
    expect(toLogicalType(facts("int", "int(11)"))).toEqual({ kind: "int32", unsigned: false, bits: 32 });
    expect(toLogicalType(facts("bigint", "bigint(20) unsigned"))).toEqual({ kind: "uint64" });
    expect(toLogicalType(facts("bigint", "bigint(20)"))).toEqual({ kind: "int64" });
  });

  it("keeps decimal precision and scale, and datetime precision with the zone of its column kind", () => {
    expect(
      toLogicalType(facts("decimal", "decimal(12,2)", { numericPrecision: 12, numericScale: 2 })),
    ).toEqual({
      kind: "decimal",
      precision: 12,
      scale: 2,
    });
    expect(toLogicalType(facts("timestamp", "timestamp(3)", { datetimePrecision: 3 }))).toEqual({
      kind: "datetime",
      fractionDigits: 3,
      zone: "utc",
    });
    expect(toLogicalType(facts("datetime", "datetime"))).toEqual({
      kind: "datetime",
      fractionDigits: 0,
      zone: "local",
    });
  });

  it("takes a BIT width from COLUMN_TYPE when information_schema gives no precision", () => {
    expect(toLogicalType(facts("bit", "bit(5)"))).toEqual({ kind: "bit", width: 5 });
    expect(toLogicalType(facts("bit", "bit", { numericPrecision: 12 }))).toEqual({ kind: "bit", width: 12 });
  });

  it("maps text, binary and spatial families, and leaves unknown types unsupported", () => {
    expect(toLogicalType(facts("longtext", "longtext"))).toEqual({ kind: "string" });
    expect(toLogicalType(facts("enum", "enum('a','b')"))).toEqual({ kind: "string" });
    expect(toLogicalType(facts("varbinary", "varbinary(16)"))).toEqual({ kind: "bytes" });
    expect(toLogicalType(facts("point", "point"))).toEqual({ kind: "geometry" });
    expect(toLogicalType(facts("inet6", "inet6"))).toBeUndefined();
  });
});
