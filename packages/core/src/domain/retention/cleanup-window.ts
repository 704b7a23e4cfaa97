import { DateTime } from "luxon";

/** A daily window in a time zone, `HH:MM-HH:MM`; it crosses midnight when it ends at or before its start. */
export interface CleanupWindow {
  /** Minutes after midnight. */
  readonly start: number;
  readonly end: number;
}

const WINDOW = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d)$/;

/** `"22:00-04:30"` as a window; undefined when the text is not one (or opens and closes at once). */
export function parseCleanupWindow(text: string): CleanupWindow | undefined {
  const match = WINDOW.exec(text);
  if (!match) return undefined;
  const [, h1, m1, h2, m2] = match.map(Number) as [number, number, number, number, number];
  const window = { start: h1 * 60 + m1, end: h2 * 60 + m2 };
  return window.start === window.end ? undefined : window;
}

/**
 * Where `now` stands against the window in `timeZone`: the instant the open
 * window closes, or, when it is closed, undefined. A window that crosses
 * midnight is open from its start to the next day's end.
 */
export function windowEndAt(window: CleanupWindow, timeZone: string, now: Date): Date | undefined {
  const local = DateTime.fromJSDate(now, { zone: timeZone });
  const minute = local.hour * 60 + local.minute;
  const crosses = window.end <= window.start;
  const open = crosses
    ? minute >= window.start || minute < window.end
    : minute >= window.start && minute < window.end;
  if (!open) return undefined;
  const endsTomorrow = crosses && minute >= window.start;
  const end = local
    .startOf("day")
    .plus({ days: endsTomorrow ? 1 : 0 })
    .set({ hour: Math.floor(window.end / 60), minute: window.end % 60 });
  return end.toJSDate();
}

/** A local date-time (`YYYY-MM-DDTHH:MM[:SS]`) in `timeZone` as an instant. */
export function localInstant(localDateTime: string, timeZone: string): Date {
  return DateTime.fromISO(localDateTime, { zone: timeZone }).toJSDate();
}
