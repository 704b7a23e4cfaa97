import { CronExpressionParser } from "cron-parser";

/**
 * Where the runs are counted from: a fixed instant, so the same cron always gives the same period
 * and `pulumi up` never rewrites an alert because the calendar moved on.
 */
const REFERENCE = new Date("2026-01-05T00:00:00Z");
/** Enough runs to cover a weekly pattern of several runs a day (a weekend's gap, say). */
const RUNS = 500;

/**
 * A schedule's period, in seconds: the longest gap between consecutive runs among the first
 * RUNS runs after a fixed instant, in the schedule's time zone. `0 2 * * *` is one day
 * (25 hours across the autumn DST change), `0 2 * * 1-5` three days (the weekend), `0 * * * *`
 * one hour. The longest gap, not the usual one, so an alert waiting "two periods" never fires
 * across a gap the schedule itself leaves.
 */
export function schedulePeriodSeconds(cron: string, timeZone: string): number {
  const runs = CronExpressionParser.parse(cron, { tz: timeZone, currentDate: REFERENCE });
  let previous = runs.next().getTime();
  let longest = 0;
  for (let i = 1; i < RUNS; i += 1) {
    const next = runs.next().getTime();
    longest = Math.max(longest, next - previous);
    previous = next;
  }
  return Math.round(longest / 1000);
}
