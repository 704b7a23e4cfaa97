import { describe, expect, test } from "vitest";
import { schedulePeriodSeconds } from "./schedule-period";

const HOUR = 3600;
const DAY = 24 * HOUR;

describe("schedulePeriodSeconds", () => {
  test.each([
    ["0 * * * *", "UTC", HOUR],
    ["0 2 * * *", "UTC", DAY],
    ["*/15 * * * *", "UTC", 15 * 60],
    // The weekend is the longest gap of a weekday schedule.
    ["0 2 * * 1-5", "UTC", 3 * DAY],
    // A week across the autumn change is an hour longer.
    ["30 3 * * 0", "Europe/Paris", 7 * DAY + HOUR],
  ])("%s in %s is %is", (cron, zone, seconds) => {
    expect(schedulePeriodSeconds(cron, zone)).toBe(seconds);
  });

  test("takes the longer day of a DST change, so two periods never end before the second run", () => {
    expect(schedulePeriodSeconds("0 12 * * *", "Europe/Paris")).toBe(DAY + HOUR);
  });
});

describe("schedulePeriodSeconds, cheaply", () => {
  test("names days of the month: a month's longest gap, 31 days", () => {
    expect(schedulePeriodSeconds("0 2 1 * *", "UTC")).toBe(31 * DAY);
  });

  test("walks a few weeks, not a year, of a nightly schedule", () => {
    const started = performance.now();
    schedulePeriodSeconds("0 2 * * *", "Europe/Paris");
    expect(performance.now() - started).toBeLessThan(200);
  });
});
