import { type CalendarDay, daysBetween } from "../../model/calendar-day";
import type { TableDay } from "../../model/table-day";
import { type Refusal, refuse } from "../cleanup/refusal";

/**
 * The retention floor: a day younger than MIN_RETENTION_DAYS (or the task's
 * own floor, when higher) is never deleted, whatever the message asked.
 */
export function floorRefusal(scope: TableDay, today: CalendarDay, floor: number): Refusal | undefined {
  const age = daysBetween(scope.day, today);
  if (age >= floor) return undefined;
  return refuse(
    "retention-floor",
    `${scope.table} ${scope.day}: ${age} ${age === 1 ? "day" : "days"} old, younger than the retention floor of ` +
      `${floor} days (MIN_RETENTION_DAYS); its rows are kept`,
  );
}
