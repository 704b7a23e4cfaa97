import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../../errors";
import type { LogicalType } from "../../model/logical-type";
import type { SourceColumn } from "../../model/table-schema";
import { type BigQueryField, bigQueryFields, bigQueryType, planSchema } from "./bigquery-types";

const column = (name: string, logicalType: LogicalType, columnType = "x"): SourceColumn => ({
  name,
  dataType: "x",
  columnType,
  nullable: true,
  logicalType,
});

describe("bigQueryType", () => {
  it.each<[string, LogicalType, string]>([
    ["TINYINT", { kind: "int32", unsigned: false, bits: 8 }, "INTEGER"],
    ["INT UNSIGNED", { kind: "int32", unsigned: true, bits: 32 }, "INTEGER"],
    ["BIGINT", { kind: "int64" }, "INTEGER"],
    ["BIGINT UNSIGNED (beyond INT64)", { kind: "uint64" }, "NUMERIC"],
    ["DECIMAL(10,2)", { kind: "decimal", precision: 10, scale: 2 }, "NUMERIC"],
    [
      "DECIMAL(38,9): 29 integer digits, NUMERIC's limit",
      { kind: "decimal", precision: 38, scale: 9 },
      "NUMERIC",
    ],
    ["DECIMAL(39,9): 30 integer digits", { kind: "decimal", precision: 39, scale: 9 }, "BIGNUMERIC"],
    ["DECIMAL(20,10): scale beyond 9", { kind: "decimal", precision: 20, scale: 10 }, "BIGNUMERIC"],
    ["DECIMAL(65,30): 35 integer digits", { kind: "decimal", precision: 65, scale: 30 }, "BIGNUMERIC"],
    ["DECIMAL(38,0): 38 integer digits", { kind: "decimal", precision: 38, scale: 0 }, "BIGNUMERIC"],
    ["DECIMAL(39,0): beyond BIGNUMERIC", { kind: "decimal", precision: 39, scale: 0 }, "STRING"],
    ["DECIMAL(65,0)", { kind: "decimal", precision: 65, scale: 0 }, "STRING"],
    ["FLOAT", { kind: "float32" }, "FLOAT"],
    ["DOUBLE", { kind: "float64" }, "FLOAT"],
    ["DATETIME(6)", { kind: "datetime", fractionDigits: 6, zone: "local" }, "DATETIME"],
    ["TIMESTAMP", { kind: "datetime", fractionDigits: 0, zone: "utc" }, "TIMESTAMP"],
    ["DATE", { kind: "date" }, "DATE"],
    ["TIME(6) (outside 00:00-24:00)", { kind: "time", fractionDigits: 6 }, "STRING"],
    ["YEAR", { kind: "year" }, "INTEGER"],
    ["VARCHAR / ENUM / SET", { kind: "string" }, "STRING"],
    ["JSON", { kind: "json" }, "JSON"],
    ["BLOB", { kind: "bytes" }, "BYTES"],
    ["BIT(1)", { kind: "bit", width: 1 }, "INTEGER"],
    ["BIT(63)", { kind: "bit", width: 63 }, "INTEGER"],
    ["BIT(64) (beyond INT64)", { kind: "bit", width: 64 }, "NUMERIC"],
    ["GEOMETRY (WKB, any SRID)", { kind: "geometry" }, "BYTES"],
  ])("maps %s to %s", (_, logical, expected) => {
    expect(bigQueryType(logical)).toBe(expected);
  });
});

describe("bigQueryFields", () => {
  it("keeps source order, makes every column NULLABLE and records the MySQL type", () => {
    const fields = bigQueryFields("orders", [
      column("id", { kind: "uint64" }, "bigint(20) unsigned"),
      column("created_at", { kind: "datetime", fractionDigits: 6, zone: "local" }, "datetime(6)"),
    ]);
    expect(fields).toEqual([
      { name: "id", type: "NUMERIC", mode: "NULLABLE", description: "MySQL bigint(20) unsigned" },
      { name: "created_at", type: "DATETIME", mode: "NULLABLE", description: "MySQL datetime(6)" },
    ]);
  });

  it.each(["price$eur", "_PARTITIONTIME", "_table_suffix"])("refuses the column name %s", (name) => {
    expect(() => bigQueryFields("orders", [column(name, { kind: "string" })])).toThrow(InvalidInputError);
  });
});

describe("planSchema", () => {
  const field = (name: string, type: string, mode = "NULLABLE"): BigQueryField => ({ name, type, mode });

  it("adds new source columns after the existing ones", () => {
    const plan = planSchema([field("id", "INTEGER")], [field("id", "INTEGER"), field("note", "STRING")]);
    expect(plan.conflicts).toEqual([]);
    expect(plan.added).toEqual([field("note", "STRING")]);
    expect(plan.fields.map((f) => f.name)).toEqual(["id", "note"]);
  });

  it("reads the API's other spellings and ignores case of names", () => {
    const plan = planSchema(
      [field("ID", "INT64"), field("x", "FLOAT64")],
      [field("id", "INTEGER"), field("x", "FLOAT")],
    );
    expect(plan).toEqual({ fields: [field("ID", "INT64"), field("x", "FLOAT64")], added: [], conflicts: [] });
  });

  it("accepts an existing column wide enough for the values", () => {
    const plan = planSchema([field("amount", "BIGNUMERIC")], [field("amount", "NUMERIC")]);
    expect(plan.conflicts).toEqual([]);
  });

  it("refuses a narrower or different existing column, naming it", () => {
    const plan = planSchema(
      [field("id", "INTEGER"), field("tags", "STRING", "REPEATED")],
      [field("id", "NUMERIC"), field("tags", "STRING")],
    );
    expect(plan.conflicts).toEqual([
      "id is INTEGER in BigQuery but the source now needs NUMERIC",
      "tags is REPEATED in BigQuery; the archiver loads one value per column",
    ]);
  });

  it("keeps columns that only the table has", () => {
    const plan = planSchema([field("id", "INTEGER"), field("legacy", "STRING")], [field("id", "INTEGER")]);
    expect(plan.fields.map((f) => f.name)).toEqual(["id", "legacy"]);
    expect(plan.conflicts).toEqual([]);
  });
});
