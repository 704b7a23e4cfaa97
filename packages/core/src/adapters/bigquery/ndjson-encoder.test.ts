import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { RefusalError } from "../../errors";
import type { LogicalType } from "../../model/logical-type";
import { createNdjsonEncoder } from "./ndjson-encoder";
import { everyTypeRows, everyTypeSchema } from "./testdata/every-type";

const golden = readFileSync(new URL("./testdata/ndjson-golden.ndjson", import.meta.url), "utf8");

const encoderFor = (logicalType: LogicalType) =>
  createNdjsonEncoder("t", [{ name: "v", dataType: "x", columnType: "x", nullable: true, logicalType }]);

describe("createNdjsonEncoder", () => {
  it("encodes a row of every type exactly as the golden file", () => {
    expect(createNdjsonEncoder("every_type", everyTypeSchema.columns)(everyTypeRows)).toBe(golden);
  });

  it("writes one parseable JSON object per line, keeping the digits JSON numbers would round", () => {
    const lines = createNdjsonEncoder("every_type", everyTypeSchema.columns)(everyTypeRows).split("\n");
    expect(lines.at(-1)).toBe("");
    const first = JSON.parse(lines[0] ?? "");
    expect(first.id).toBe("18446744073709551615");
    expect(first.mask).toBe("18446744073709551615");
    expect(first.big).toBe("-9223372036854775808");
    expect(first.huge).toHaveLength(66);
    expect(first.name).toBe('naïve 😀 "q" \\ \n\t end');
    expect(Buffer.from(first.payload, "base64")).toEqual(Buffer.from([0, 255, 1, 2, 3]));
    expect(Object.is(JSON.parse(lines[1] ?? "").score, -0)).toBe(true);
    // The document is embedded as written, so the number keeps all 20 digits.
    expect(lines[0]).toContain('"doc":{"a": 12345678901234567890,');
  });

  it("encodes an empty batch as nothing", () => {
    expect(createNdjsonEncoder("every_type", everyTypeSchema.columns)([])).toBe("");
  });

  it("leaves SQL NULL out of a JSON column and writes the JSON document null as null", () => {
    expect(encoderFor({ kind: "json" })([[null], ["null"], ["[null]"]])).toBe(
      '{}\n{"v":null}\n{"v":[null]}\n',
    );
  });

  it("turns line breaks between JSON tokens into spaces so a document stays on its row", () => {
    expect(encoderFor({ kind: "json" })([['{\n"a":\r\n[1,\n2]}']])).toBe('{"v":{ "a":  [1, 2]}}\n');
  });

  it.each<[string, LogicalType, unknown]>([
    ["a JSON document that is not one value", { kind: "json" }, '1,"other":2'],
    ["a decimal with a letter", { kind: "decimal", precision: 10, scale: 2 }, "1e5"],
    ["a BIGINT as an unsafe number", { kind: "int64" }, 2 ** 60],
    ["a fractional INT", { kind: "int32", unsigned: false, bits: 32 }, 1.5],
    ["an infinite DOUBLE", { kind: "float64" }, Number.POSITIVE_INFINITY],
    ["a DATETIME in ISO form", { kind: "datetime", fractionDigits: 0, zone: "local" }, "2024-01-01T00:00:00"],
    ["a zero date that was not turned into null", { kind: "date" }, "0000-00-00"],
    ["a zero DATETIME", { kind: "datetime", fractionDigits: 0, zone: "local" }, "0000-00-00 00:00:00"],
    ["bytes as text", { kind: "bytes" }, "AP8="],
    ["a TIME with a day part", { kind: "time", fractionDigits: 0 }, "1 10:00:00"],
  ])("refuses %s, naming the column", (_, type, value) => {
    const encode = encoderFor(type);
    expect(() => encode([[value]])).toThrow(RefusalError);
    expect(() => encode([[value]])).toThrow(/^t\.v: /);
  });

  it("refuses a row whose length does not match the columns", () => {
    expect(() => encoderFor({ kind: "string" })([["a", "b"]])).toThrow(
      /2 values but the table has 1 columns/,
    );
  });
});
