import { describe, expect, it } from "vitest";
import { deadlineMarginMs } from "./last-attempt-deadline";

describe("deadlineMarginMs", () => {
  it("leaves a tenth of a short dispatch deadline", () => {
    expect(deadlineMarginMs(15_000)).toBe(1_500);
    expect(deadlineMarginMs(120_000)).toBe(12_000);
  });

  it("leaves 30 s of a long one", () => {
    expect(deadlineMarginMs(300_000)).toBe(30_000);
    expect(deadlineMarginMs(1_800_000)).toBe(30_000);
  });
});
