import { describe, expect, it } from "vitest";
import { integerText, isDenseKeyRange, keySlices } from "./key-range";

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

describe("integerText", () => {
  it("canonicalises integer text and refuses anything else before it reaches SQL", () => {
    expect(integerText("007")).toBe("7");
    expect(integerText("-18446744073709551615")).toBe("-18446744073709551615");
    for (const bad of ["", "1.5", "1e3", "1 OR 1=1", " 1"])
      expect(() => integerText(bad)).toThrow(/not an integer key/);
  });
});

describe("keySlices", () => {
  it("cuts a dense range into contiguous slices of about the rows asked, covering every key once", () => {
    const slices = keySlices("1001", "9000", 8000, 1000);
    expect(slices).toHaveLength(8);
    expect(slices[0]).toEqual({ min: "1001", max: "2000" });
    expect(slices.at(-1)).toEqual({ min: "8001", max: "9000" });
    for (let i = 1; i < slices.length; i++) {
      expect(BigInt(slices[i]?.min ?? 0) - BigInt(slices[i - 1]?.max ?? 0)).toBe(1n);
    }
  });

  it("keeps one range when the rows fit in one slice, or the range is a single key", () => {
    expect(keySlices("5", "900", 800, 1000)).toEqual([{ min: "5", max: "900" }]);
    expect(keySlices("7", "7", 1, 1)).toEqual([{ min: "7", max: "7" }]);
  });

  it("ends exactly at the last key when the span does not divide evenly, beyond 2^53 and below zero", () => {
    const big = keySlices("18446744073709550000", "18446744073709551615", 1616, 500);
    expect(big[0]?.min).toBe("18446744073709550000");
    expect(big.at(-1)?.max).toBe("18446744073709551615");
    expect(big).toHaveLength(4);
    const signed = keySlices("-10", "10", 21, 10);
    expect(signed.map((s) => [s.min, s.max])).toEqual([
      ["-10", "-4"],
      ["-3", "3"],
      ["4", "10"],
    ]);
  });

  it("refuses a slice size that is not a positive integer", () => {
    expect(() => keySlices("1", "10", 10, 0)).toThrow(/sliceRows/);
  });
});
