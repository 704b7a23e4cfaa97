import { describe, expect, it } from "vitest";
import { createLagForecast } from "./lag-forecast";

/** A forecast on a clock the test moves, fed `lags` one every `everyMs`; answers the last peak. */
function fed(lags: readonly number[], everyMs: number, chunkMs = 0, replica = "r1:3306") {
  let now = 0;
  const forecast = createLagForecast({ now: () => now });
  forecast.chunkRan(chunkMs);
  let peak = Number.NaN;
  for (const seconds of lags) {
    peak = forecast.peak(replica, seconds);
    now += everyMs;
  }
  return { forecast, peak, at: (ms: number) => (now = ms) };
}

describe("createLagForecast", () => {
  it("answers the lag as it reads until it has three samples over at least 0.3 s", () => {
    expect(fed([0.2, 0.5], 200).peak).toBe(0.5);
    expect(fed([0.2, 0.3, 0.4], 100).peak).toBe(0.4);
  });

  it("forecasts the peak of a lag rising half a second a second, the chunk being applied and one more included", () => {
    // The replica applies at half the speed: 0.4 s of lag, the 200 ms chunk
    // it is applying, and the next chunk's 0.1 s of rise take twice as long.
    expect(fed([0.1, 0.2, 0.3, 0.4], 200, 200).peak).toBeCloseTo(1.4, 6);
    expect(fed([0.1, 0.2, 0.3, 0.4], 200, 0).peak).toBeCloseTo(0.8, 6);
  });

  it("answers a falling or steady lag as it reads", () => {
    expect(fed([0.9, 0.7, 0.5, 0.3], 200, 200).peak).toBe(0.3);
    expect(fed([0.3, 0.3, 0.3, 0.3], 200, 200).peak).toBe(0.3);
  });

  it("bounds the forecast of a replica that stopped applying at ten times its lag", () => {
    expect(fed([0.2, 0.4, 0.6, 0.8], 200, 0).peak).toBeCloseTo(8, 6);
  });

  it("counts the slope afresh once the replica has caught up", () => {
    expect(fed([0.2, 0.4, 0.6, 0.8, 0.05, 0.06], 200, 200).peak).toBe(0.06);
    expect(fed([0.2, 0.4, 0.6, 0.8, 0.05, 0.15, 0.25], 200, 0).peak).toBeCloseTo(0.5, 6);
  });

  it("forgets samples over 3 s old, and keeps each replica's apart", () => {
    const { forecast, at } = fed([0.1, 0.3, 0.5, 0.7], 200, 0, "r1:3306");
    expect(forecast.peak("r2:3306", 0.7)).toBe(0.7);
    at(5_000);
    expect(forecast.peak("r1:3306", 0.7)).toBe(0.7);
  });
});
