import { describe, expect, it } from "vitest";
import { durationMs, retryHorizonMs } from "./retry-horizon";

describe("durationMs", () => {
  it("reads seconds as number, string or Long-like, plus nanos", () => {
    expect(durationMs({ seconds: 3600 })).toBe(3_600_000);
    expect(durationMs({ seconds: "10", nanos: 500_000_000 })).toBe(10_500);
    expect(durationMs({ seconds: { toString: () => "7" } as never })).toBe(7_000);
    expect(durationMs(null)).toBe(0);
  });
});

describe("retryHorizonMs", () => {
  it("uses the max retry duration when the queue has one, plus room for the last attempts", () => {
    expect(retryHorizonMs({ maxRetryDuration: { seconds: 3600 }, maxAttempts: 5 }, 600)).toBe(
      3_600_000 + 1_200_000,
    );
  });

  it("sums capped, doubling backoffs over max attempts when the duration is unlimited", () => {
    const retry = { maxAttempts: 4, minBackoff: { seconds: 10 }, maxBackoff: { seconds: 30 } };
    // Attempts 4 x 60 s, backoffs 10 + 20 + 30 (capped) s.
    expect(retryHorizonMs(retry, 60)).toBe(240_000 + 60_000);
  });

  it("is unlimited when neither duration nor attempts are", () => {
    expect(retryHorizonMs({ maxAttempts: -1 }, 60)).toBe(Number.POSITIVE_INFINITY);
  });

  it("takes Cloud Tasks' defaults (100 attempts, 0.1 s to 1 h backoff) for an unset config", () => {
    const horizon = retryHorizonMs({}, 600);
    expect(horizon).toBeGreaterThan(100 * 600_000);
    expect(Number.isFinite(horizon)).toBe(true);
  });
});
