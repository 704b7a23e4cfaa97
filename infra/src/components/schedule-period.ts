import { CronExpressionParser } from "cron-parser";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/**
 * Where the runs are counted from: a fixed Monday (and the clock changes of its year), so the same
 * cron always gives the same period and `pulumi up` never rewrites an alert because time passed.
 */
const REFERENCE = new Date("2026-01-05T00:00:00Z");
/** A week and a day: every gap of a schedule that names no day of the month nor month. */
const WEEK_SPAN = 8 * DAY_MS;
/** A year and a month: every gap of one that does (`0 2 1 * *`, `0 2 * 1,7 *`). */
const YEAR_SPAN = 400 * DAY_MS;
/**
 * Runs a walk stops at whatever its span: cron-parser takes a quarter of a millisecond a run, and
 * 500 runs of a schedule every five minutes are still a day and a half of its gaps.
 */
const MAX_RUNS = 500;

/**
 * A schedule's period, in seconds: the longest gap between two consecutive runs of the cron in its
 * time zone. `0 2 * * *` is one day, 25 hours in a zone that changes its clock; `0 2 * * 1-5`
 * three days (the weekend); `0 * * * *` one hour. The longest, not the usual, so an alert that
 * waits "two periods" never fires across a gap the schedule leaves itself.
 *
 * Walked, not computed: the runs of a week from a fixed Monday and of the weeks around each clock
 * change of the zone in that year, or of a whole year when the cron names days of the month or
 * months; at most MAX_RUNS runs a walk. (A year of a nightly cron costs cron-parser half a second.)
 */
export function schedulePeriodSeconds(cron: string, timeZone: string): number {
  const [, , dayOfMonth, month] = cron.trim().split(/\s+/);
  const walks =
    dayOfMonth !== "*" || month !== "*"
      ? [{ from: REFERENCE, span: YEAR_SPAN }]
      : [
          { from: REFERENCE, span: WEEK_SPAN },
          ...clockChanges(timeZone, REFERENCE).map((change) => ({
            from: new Date(change.getTime() - WEEK_SPAN),
            span: 2 * WEEK_SPAN,
          })),
        ];
  let longest = 0;
  for (const { from, span } of walks) {
    const runs = CronExpressionParser.parse(cron, { tz: timeZone, currentDate: from });
    let previous = runs.next().getTime();
    const end = previous + span;
    for (let run = 1; run < MAX_RUNS && previous < end; run += 1) {
      const next = runs.next().getTime();
      longest = Math.max(longest, next - previous);
      previous = next;
    }
  }
  return Math.round(longest / 1000);
}

/** The days of the year after `from` on which the zone's UTC offset changes (none for UTC). */
function clockChanges(timeZone: string, from: Date): Date[] {
  const format = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" });
  const offset = (at: Date) => format.formatToParts(at).find((p) => p.type === "timeZoneName")?.value;
  const changes: Date[] = [];
  let before = offset(from);
  for (let day = 1; day <= 366; day += 1) {
    const at = new Date(from.getTime() + day * DAY_MS);
    const now = offset(at);
    if (now !== before) changes.push(at);
    before = now;
  }
  return changes;
}
