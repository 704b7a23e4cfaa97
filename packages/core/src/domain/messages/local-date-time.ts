import { isCalendarDay } from "../../model/calendar-day";

const LOCAL_DATE_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2}):(\d{2})$/;

/** True for a real `YYYY-MM-DDTHH:MM:SS` (no zone, no fraction), e.g. 2024-02-29T13:05:00. */
export function isLocalDateTime(value: string): boolean {
  const match = LOCAL_DATE_TIME.exec(value);
  if (!match) return false;
  const [, day, hours, minutes, seconds] = match;
  return isCalendarDay(day ?? "") && Number(hours) <= 23 && Number(minutes) <= 59 && Number(seconds) <= 59;
}
