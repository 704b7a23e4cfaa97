/** A calendar day written `YYYY-MM-DD`. Days compare correctly as strings. */
export type CalendarDay = string;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real Gregorian day between 1000-01-01 and 9999-12-31 (MySQL's DATETIME range). */
export function isCalendarDay(value: string): value is CalendarDay {
  const match = DAY.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return year >= 1000 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** Days in a month of the proleptic Gregorian calendar (month 1-12), by arithmetic: no Date, so years below 100 too. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

export function formatDay(year: number, month: number, day: number): CalendarDay {
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

export function addDays(day: CalendarDay, count: number): CalendarDay {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + count);
  return date.toISOString().slice(0, 10);
}

/** `YYYY-MM-DD 00:00:00`, the first instant of the day as MySQL writes it. */
export function startOfDay(day: CalendarDay): string {
  return `${day} 00:00:00`;
}

/** Whole days from `from` to `to` (negative when `to` comes first). */
export function daysBetween(from: CalendarDay, to: CalendarDay): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}
