import { type CalendarDay, daysInMonth, formatDay } from "../../model/calendar-day";

// Building a DateTimeFormat costs about 0.4 ms (it loads the zone's rules); every task asks for today.
const formats = new Map<string, Intl.DateTimeFormat>();

function dayFormat(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    });
    formats.set(timeZone, format);
  }
  return format;
}

/** Today's calendar day in `timeZone` (an IANA name such as UTC or America/New_York). */
export function todayIn(now: Date, timeZone: string): CalendarDay {
  const parts = dayFormat(timeZone).formatToParts(now);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return formatDay(part("year"), part("month"), part("day"));
}

/**
 * The migration cutoff: today in `timeZone` minus `years` years and `months`
 * months, by calendar arithmetic, with the day clamped to the end of the
 * target month (2024-03-31 minus 1 month is 2024-02-29). Rows strictly before
 * this day are migrated; the cutoff day itself is not.
 */
export function cutoffDay(now: Date, timeZone: string, years: number, months: number): CalendarDay {
  const [year, month, day] = todayIn(now, timeZone).split("-").map(Number) as [number, number, number];
  const monthIndex = year * 12 + (month - 1) - years * 12 - months;
  const targetYear = Math.floor(monthIndex / 12);
  const targetMonth = (monthIndex % 12) + 1;
  return formatDay(targetYear, targetMonth, Math.min(day, daysInMonth(targetYear, targetMonth)));
}
