import { describe, expect, it } from "vitest";
import { dayFiguresFrom, emptyDayFigures } from "./day-figures";

describe("dayFiguresFrom", () => {
  it("reads a source's answer: counts as numbers, the fingerprint and the key's figures as text", () => {
    const values = { rows: 3, fingerprint: "184467440737095516150", count: "3", sum: 18446744073709551615n };
    expect(dayFiguresFrom("id", { ...values, min: "-5", max: 18446744073709551610n })).toEqual({
      rows: 3,
      fingerprint: "184467440737095516150",
      key: { column: "id", count: 3, sum: "18446744073709551615", min: "-5", max: "18446744073709551610" },
    });
  });

  it("reads the answer for no rows (NULL bounds, or nothing at all) as a day without rows", () => {
    expect(dayFiguresFrom("id", { rows: 0, count: 0, sum: "0", min: null, max: null })).toEqual(
      emptyDayFigures("id"),
    );
    expect(dayFiguresFrom("id", { rows: undefined })).toEqual(emptyDayFigures("id"));
  });

  it("leaves out the key's figures without a key column, and the fingerprint where none was computed", () => {
    expect(dayFiguresFrom(undefined, { rows: "7", count: 7, sum: "28", min: "1", max: "7" })).toEqual({
      rows: 7,
    });
    expect(dayFiguresFrom(undefined, { rows: 7, fingerprint: "42" })).toEqual({ rows: 7, fingerprint: "42" });
  });
});
