import { describe, expect, it } from "vitest";
import { integerText, isDenseKeyRange, keyRangePages } from "./key-range";

describe("isDenseKeyRange", () => {
  it("takes a range whose keys are at most four per row, gaps included", () => {
    expect(isDenseKeyRange("1", "80", 20)).toBe(true);
    expect(isDenseKeyRange("1", "81", 20)).toBe(false);
    expect(isDenseKeyRange("-5", "5", 3)).toBe(true);
  });

  it("compares keys beyond 2^53 exactly, and treats an empty range as one row", () => {
    expect(isDenseKeyRange("18446744073709551612", "18446744073709551615", 1)).toBe(true);
    expect(isDenseKeyRange("8", "18446744073709551615", 3)).toBe(false);
    expect(isDenseKeyRange("7", "7", 0)).toBe(true);
  });
});

describe("keyRangePages", () => {
  it("cuts a range into consecutive ranges of at most so many keys, the last one short", () => {
    expect([...keyRangePages("10", "19", 4)]).toEqual([
      { min: "10", max: "13" },
      { min: "14", max: "17" },
      { min: "18", max: "19" },
    ]);
    expect([...keyRangePages("-2", "1", 4)]).toEqual([{ min: "-2", max: "1" }]);
    expect([...keyRangePages("5", "5", 300)]).toEqual([{ min: "5", max: "5" }]);
  });

  it("counts keys beyond 2^53 exactly, up to the largest unsigned key", () => {
    expect([...keyRangePages("18446744073709551610", "18446744073709551615", 4)]).toEqual([
      { min: "18446744073709551610", max: "18446744073709551613" },
      { min: "18446744073709551614", max: "18446744073709551615" },
    ]);
  });
});

describe("integerText", () => {
  it("canonicalises integer text and refuses anything else before it reaches SQL", () => {
    expect(integerText("007")).toBe("7");
    expect(integerText("-18446744073709551615")).toBe("-18446744073709551615");
    for (const bad of ["", "1.5", "1e3", "1 OR 1=1", " 1"])
      expect(() => integerText(bad)).toThrow(/not an integer key/);
  });
});
