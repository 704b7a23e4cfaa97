import { describe, expect, it } from "vitest";
import { isFinalTaskError } from "./error-code";
import { ConfigError, InvalidInputError, RefusalError, TransientError } from "./index";

describe("isFinalTaskError", () => {
  it("is true for invalid input and refused verification, by class or by code alone", () => {
    expect(isFinalTaskError(new InvalidInputError("day", "not a day"))).toBe(true);
    expect(isFinalTaskError(new RefusalError("counts differ"))).toBe(true);
    expect(isFinalTaskError(Object.assign(new Error("from a bundle"), { code: "VERIFICATION_FAILED" }))).toBe(
      true,
    );
  });

  it("is false for errors a retry may get past, and for things that are not errors", () => {
    expect(isFinalTaskError(new TransientError("mysql down"))).toBe(false);
    expect(isFinalTaskError(new ConfigError("MYSQL_URL is missing"))).toBe(false);
    expect(isFinalTaskError(new Error("boom"))).toBe(false);
    expect(isFinalTaskError(null)).toBe(false);
    expect(isFinalTaskError("INVALID_INPUT")).toBe(false);
  });
});
