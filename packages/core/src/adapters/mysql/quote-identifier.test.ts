import { describe, expect, it } from "vitest";
import { quoteIdentifier } from "./quote-identifier";

describe("quoteIdentifier", () => {
  it("wraps a plain name in backticks", () => {
    expect(quoteIdentifier("created_at")).toBe("`created_at`");
  });

  it("doubles backticks so the name cannot close the quote", () => {
    expect(quoteIdentifier("a`b")).toBe("`a``b`");
    expect(quoteIdentifier("`; DROP TABLE t; --")).toBe("```; DROP TABLE t; --`");
  });

  it("refuses names MySQL cannot hold", () => {
    expect(() => quoteIdentifier("")).toThrow(/identifier/);
    expect(() => quoteIdentifier("a\0b")).toThrow(/identifier/);
  });
});
