import { describe, expect, it } from "vitest";
import { cutoffDay, todayIn } from "./cutoff-day";

describe("cutoffDay", () => {
  it.each([
    // [now (UTC instant), zone, years, months, expected cutoff]
    ["2026-11-21T10:00:00Z", "UTC", 1, 0, "2025-11-21"],
    ["2026-11-21T10:00:00Z", "UTC", 0, 0, "2026-11-21"],
    ["2026-11-21T10:00:00Z", "UTC", 2, 3, "2024-08-21"],
    ["2026-01-15T10:00:00Z", "UTC", 0, 1, "2025-12-15"],
    ["2026-01-15T10:00:00Z", "UTC", 0, 13, "2024-12-15"],
    // end of month clamps to the last day of the target month
    ["2024-03-31T12:00:00Z", "UTC", 0, 1, "2024-02-29"],
    ["2025-03-31T12:00:00Z", "UTC", 0, 1, "2025-02-28"],
    ["2026-05-31T12:00:00Z", "UTC", 0, 1, "2026-04-30"],
    ["2026-12-31T12:00:00Z", "UTC", 0, 10, "2026-02-28"],
    // 29 February minus whole years lands on 28 February in common years
    ["2024-02-29T12:00:00Z", "UTC", 1, 0, "2023-02-28"],
    ["2024-02-29T12:00:00Z", "UTC", 4, 0, "2020-02-29"],
    ["2024-02-29T12:00:00Z", "UTC", 0, 12, "2023-02-28"],
    // "today" is taken in the configured zone, not in UTC
    ["2026-01-01T03:00:00Z", "America/New_York", 0, 1, "2025-11-30"],
    ["2026-01-01T03:00:00Z", "UTC", 0, 1, "2025-12-01"],
    ["2025-12-31T20:00:00Z", "Asia/Tokyo", 1, 0, "2025-01-01"],
    ["2026-03-29T00:30:00Z", "Europe/Madrid", 0, 0, "2026-03-29"],
  ])("%s in %s minus %i years %i months is %s", (now, zone, years, months, expected) => {
    expect(cutoffDay(new Date(now), zone, years, months)).toBe(expected);
  });
});

describe("todayIn", () => {
  it("follows the zone across midnight", () => {
    const instant = new Date("2026-06-30T23:30:00Z");
    expect(todayIn(instant, "UTC")).toBe("2026-06-30");
    expect(todayIn(instant, "Europe/Berlin")).toBe("2026-07-01");
    expect(todayIn(instant, "Pacific/Honolulu")).toBe("2026-06-30");
  });
});
