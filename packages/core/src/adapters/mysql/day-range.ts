import { addDays, type CalendarDay, startOfDay } from "../../model/calendar-day";
import type { SqlQuery } from "./sql-query";

/**
 * The rows of `day` on the already quoted DATETIME column: `column >= 'D 00:00:00'
 * AND column < 'D+1 00:00:00'`, so 23:59:59.999999 stays in its own day.
 *
 * MariaDB and MySQL without NO_ZERO_IN_DATE store partial zero dates such as
 * `2020-05-00` or `2020-00-15`; they sort between the last day of a month and
 * the first of the next, inside the range of a month's last day. They belong
 * to no day, so on those days the condition also leaves them out. The extra
 * test runs only on rows the range already selected.
 */
export function dayCondition(quotedColumn: string, day: CalendarDay): SqlQuery {
  const next = addDays(day, 1);
  const range = `${quotedColumn} >= ? AND ${quotedColumn} < ?`;
  const monthEnd = next.endsWith("-01");
  return {
    sql: monthEnd ? `${range} AND MONTH(${quotedColumn}) <> 0 AND DAYOFMONTH(${quotedColumn}) <> 0` : range,
    values: [startOfDay(day), startOfDay(next)],
  };
}

/** True for `0000-00-00...` and partial zero dates (`2020-00-15`, `2020-05-00`), which name no real day. */
export function isZeroDate(value: string): boolean {
  // '0' is 48; month at 5-6, day at 8-9 in both DATE and DATETIME text.
  return (
    (value.charCodeAt(5) === 48 && value.charCodeAt(6) === 48) ||
    (value.charCodeAt(8) === 48 && value.charCodeAt(9) === 48)
  );
}

/**
 * The first real day at or after a partial zero date: `2020-00-15` -> `2020-01-01`,
 * `2020-05-00 10:00:00` -> `2020-05-01`.
 */
export function firstDayAfterZeroDate(value: string): CalendarDay {
  const year = value.slice(0, 4);
  const month = value.slice(5, 7);
  return month === "00" ? `${year}-01-01` : `${year}-${month}-01`;
}
