import { describe, expect, it } from "vitest";
import { fieldName, rowJson } from "./row-json";

describe("rowJson", () => {
  it("keeps canonical strings, writes bytes as base64 and keeps null", () => {
    const row = [
      "18446744073709551615",
      "12.50",
      "2024-02-29 23:59:59.123456",
      Buffer.from([0, 255]),
      null,
      3.5,
    ];
    const columns = ["id", "amount", "at", "blob", "note", "ratio"];
    expect(JSON.parse(rowJson(columns, row))).toEqual({
      id: "18446744073709551615",
      amount: "12.50",
      at: "2024-02-29 23:59:59.123456",
      blob: "AP8=",
      note: null,
      ratio: 3.5,
    });
  });

  it("writes a bigint as its exact digits", () => {
    expect(rowJson(["n"], [2n ** 64n - 1n])).toBe('{"n":"18446744073709551615"}');
  });
});

describe("fieldName", () => {
  it("is the key's text for a one-column key", () => {
    expect(fieldName([42, "x"], [0])).toBe("42");
    expect(fieldName(["x", Buffer.from("ab")], [1])).toBe("YWI=");
  });

  it("is a JSON array for a key of several columns, so values with separators cannot collide", () => {
    expect(fieldName(["a:b", "c"], [0, 1])).toBe('["a:b","c"]');
    expect(fieldName(["a", "b:c"], [0, 1])).toBe('["a","b:c"]');
  });
});
