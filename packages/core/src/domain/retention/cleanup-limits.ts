import type { CalendarDay } from "../../model/calendar-day";
import type { CleanDayTask } from "../../model/task";
import type { CleanupDeps } from "../cleanup/cleanup-deps";
import type { DayRefusal } from "../cleanup/refusal";
import { todayIn } from "../days/cutoff-day";
import type { CleanupMessage } from "../messages/cleanup-message";
import { localInstant, parseCleanupWindow, windowEndAt } from "./cleanup-window";
import { floorRefusal } from "./retention-floor";

/** The limits a cleanup message puts on its tasks, as fields every task carries. */
export type TaskLimits = Pick<CleanDayTask, "windowEnd" | "maxRowsPerSecond" | "minRetentionDays">;

/**
 * Where the message's window stands now: `closed` when deletes may not
 * happen now (outside `cleanup_window`, or past `window_end`), otherwise the
 * limits its tasks carry: the instant they must stop by, the rate cap and
 * the retention floor.
 */
export function cleanupLimits(
  deps: Pick<CleanupDeps, "clock" | "timeZone">,
  message: CleanupMessage,
): TaskLimits | "closed" {
  const now = deps.clock();
  const zone = message.time_zone ?? deps.timeZone;
  const window = message.cleanup_window ? parseCleanupWindow(message.cleanup_window) : undefined;
  const ends = [
    ...(window ? [windowEndAt(window, zone, now) ?? now] : []),
    ...(message.window_end ? [localInstant(message.window_end, zone)] : []),
  ];
  const end = ends.length > 0 ? new Date(Math.min(...ends.map((at) => at.getTime()))) : undefined;
  if (end && end.getTime() <= now.getTime()) return "closed";
  return {
    ...(end ? { windowEnd: end.toISOString() } : {}),
    ...(message.max_rows_per_second ? { maxRowsPerSecond: message.max_rows_per_second } : {}),
    ...(message.min_retention_days !== undefined ? { minRetentionDays: message.min_retention_days } : {}),
  };
}

/**
 * The days the retention floor keeps (MIN_RETENTION_DAYS, or the message's
 * higher one), each refused with its age, and the days it lets through.
 */
export function splitByFloor(
  deps: Pick<CleanupDeps, "clock" | "timeZone" | "settings">,
  table: string,
  message: CleanupMessage,
  days: readonly CalendarDay[],
): { readonly old: CalendarDay[]; readonly young: DayRefusal[] } {
  const today = todayIn(deps.clock(), deps.timeZone);
  const floor = Math.max(deps.settings.minRetentionDays, message.min_retention_days ?? 0);
  const old: CalendarDay[] = [];
  const young: DayRefusal[] = [];
  for (const day of days) {
    const refused = floorRefusal({ table, day }, today, floor);
    if (refused) young.push({ day, refusal: refused.refusal, reason: refused.reason });
    else old.push(day);
  }
  return { old, young };
}
