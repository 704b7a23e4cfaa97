import { describe, expect, it } from "vitest";
import { count, number } from "./wording";

describe("number", () => {
  it("writes what toLocaleString('en-US') writes", () => {
    const values = [
      0,
      -0,
      1,
      7,
      12,
      999,
      1000,
      1001,
      12_345,
      123_456,
      1_234_567,
      -1,
      -999,
      -1000,
      -1_234_567,
      Number.MAX_SAFE_INTEGER,
      Number.MIN_SAFE_INTEGER,
      2 ** 60,
      1e21,
      0.5,
      1234.5678,
      -9876.54321,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ];
    for (const value of values) expect(number(value), String(value)).toBe(value.toLocaleString("en-US"));
  });
});

describe("count", () => {
  it("puts the noun in the plural unless the count is exactly one", () => {
    expect(count(1, "day")).toBe("1 day");
    expect(count(0, "day")).toBe("0 days");
    expect(count(1234, "row")).toBe("1,234 rows");
  });
});
