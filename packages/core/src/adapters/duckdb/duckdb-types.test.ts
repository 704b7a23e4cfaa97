import {
  DECIMAL,
  DuckDBDecimalValue,
  DuckDBTimestampValue,
  FLOAT,
  INTEGER,
  TIMESTAMP,
  UUID,
  VARCHAR,
} from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import type { LogicalType } from "../../model/logical-type";
import { CanonicalValueError } from "./canonical-values";
import { compareColumnTypes, duckDbColumnType, valueEncoder } from "./duckdb-types";

describe("duckDbColumnType", () => {
  it.each<[LogicalType, string]>([
    [{ kind: "int32", unsigned: false, bits: 8 }, "TINYINT"],
    [{ kind: "int32", unsigned: true, bits: 8 }, "UTINYINT"],
    [{ kind: "int32", unsigned: false, bits: 16 }, "SMALLINT"],
    [{ kind: "int32", unsigned: true, bits: 16 }, "USMALLINT"],
    [{ kind: "int32", unsigned: false, bits: 24 }, "INTEGER"],
    [{ kind: "int32", unsigned: true, bits: 24 }, "UINTEGER"],
    [{ kind: "int32", unsigned: false, bits: 32 }, "INTEGER"],
    [{ kind: "int32", unsigned: true, bits: 32 }, "UINTEGER"],
    [{ kind: "int64" }, "BIGINT"],
    [{ kind: "uint64" }, "UBIGINT"],
    [{ kind: "decimal", precision: 12, scale: 2 }, "DECIMAL(12,2)"],
    [{ kind: "decimal", precision: 38, scale: 38 }, "DECIMAL(38,38)"],
    [{ kind: "decimal", precision: 39, scale: 2 }, "VARCHAR"],
    [{ kind: "decimal", precision: 65, scale: 30 }, "VARCHAR"],
    [{ kind: "float32" }, "FLOAT"],
    [{ kind: "float64" }, "DOUBLE"],
    [{ kind: "datetime", fractionDigits: 6, zone: "local" }, "TIMESTAMP"],
    [{ kind: "datetime", fractionDigits: 0, zone: "utc" }, "TIMESTAMP"],
    [{ kind: "date" }, "DATE"],
    [{ kind: "time", fractionDigits: 6 }, "INTERVAL"],
    [{ kind: "year" }, "USMALLINT"],
    [{ kind: "string" }, "VARCHAR"],
    [{ kind: "json" }, "JSON"],
    [{ kind: "bytes" }, "BLOB"],
    [{ kind: "bit", width: 64 }, "UBIGINT"],
    [{ kind: "geometry" }, "BLOB"],
  ])("%j -> %s", (type, expected) => {
    expect(duckDbColumnType(type, { json: true })).toBe(expected);
  });

  it("keeps JSON as VARCHAR when the json extension is missing", () => {
    expect(duckDbColumnType({ kind: "json" }, { json: false })).toBe("VARCHAR");
  });
});

describe("compareColumnTypes", () => {
  it.each([
    ["INTEGER", "INTEGER", "keep"],
    ["JSON", "VARCHAR", "keep"],
    ["VARCHAR", "JSON", "keep"],
    ["BIGINT", "INTEGER", "keep"],
    ["BIGINT", "UINTEGER", "keep"],
    ["INTEGER", "BIGINT", "widen"],
    ["UTINYINT", "USMALLINT", "widen"],
    ["UINTEGER", "INTEGER", "incompatible"],
    ["BIGINT", "UBIGINT", "incompatible"],
    ["DECIMAL(12,2)", "DECIMAL(10,2)", "keep"],
    ["DECIMAL(10,2)", "DECIMAL(12,4)", "widen"],
    ["DECIMAL(12,2)", "DECIMAL(12,4)", "incompatible"],
    ["DECIMAL(38,10)", "VARCHAR", "widen"],
    ["VARCHAR", "DECIMAL(12,2)", "keep"],
    ["INTEGER", "VARCHAR", "widen"],
    ["FLOAT", "DOUBLE", "widen"],
    ["DOUBLE", "FLOAT", "keep"],
    ["TIMESTAMP", "VARCHAR", "incompatible"],
    ["BLOB", "VARCHAR", "incompatible"],
    ["VARCHAR", "TIMESTAMP", "incompatible"],
    ["DATE", "TIMESTAMP", "incompatible"],
    ["INTERVAL", "BIGINT", "incompatible"],
  ])("%s in the warehouse, %s wanted: %s", (existing, wanted, expected) => {
    expect(compareColumnTypes(existing, wanted)).toBe(expected);
  });
});

describe("valueEncoder", () => {
  it("scales decimals exactly for the column's width and scale", () => {
    const encoded = valueEncoder(DECIMAL(12, 2))("-12.5");
    expect(encoded).toEqual(new DuckDBDecimalValue(-1250n, 12, 2));
  });

  it("turns datetime text into microseconds and reuses the last one for a repeated value", () => {
    const encode = valueEncoder(TIMESTAMP);
    const first = encode("2024-05-06 12:00:00.000001");
    expect(first).toEqual(new DuckDBTimestampValue(1_714_996_800_000_001n));
    expect(encode("2024-05-06 12:00:00.000001")).toBe(first);
    expect(encode("2024-05-06 12:00:00.000002")).not.toBe(first);
  });

  it("takes float32 values and refuses numbers FLOAT would round", () => {
    expect(valueEncoder(FLOAT)(Math.fround(0.1))).toBe(Math.fround(0.1));
    expect(valueEncoder(FLOAT)(-3.4028234663852886e38)).toBe(-3.4028234663852886e38);
    expect(() => valueEncoder(FLOAT)(0.1)).toThrow(/0.1 is not a float32 value/);
  });

  it("refuses a value of the wrong JavaScript type", () => {
    expect(() => valueEncoder(INTEGER)("1")).toThrow(CanonicalValueError);
    expect(() => valueEncoder(VARCHAR)(1)).toThrow(CanonicalValueError);
  });

  it("refuses a column type the archiver never creates", () => {
    expect(() => valueEncoder(UUID)).toThrow(/does not write DuckDB columns of type UUID/);
  });
});
