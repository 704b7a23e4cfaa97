import { describe, expect, it } from "vitest";
import { dayCondition, firstDayAfterZeroDate, isZeroDate } from "./day-range";

describe("dayCondition", () => {
  it("bounds a day by its midnight and the next midnight", () => {
    expect(dayCondition("`c`", "2024-02-28")).toEqual({
      sql: "`c` >= ? AND `c` < ?",
      values: ["2024-02-28 00:00:00", "2024-02-29 00:00:00"],
    });
  });

  it("leaves partial zero dates out of a month's last day", () => {
    const condition = dayCondition("`c`", "2024-02-29");
    expect(condition.values).toEqual(["2024-02-29 00:00:00", "2024-03-01 00:00:00"]);
    expect(condition.sql).toBe("`c` >= ? AND `c` < ? AND MONTH(`c`) <> 0 AND DAYOFMONTH(`c`) <> 0");
    expect(dayCondition("`c`", "2023-12-31").values).toEqual(["2023-12-31 00:00:00", "2024-01-01 00:00:00"]);
  });
});

describe("isZeroDate", () => {
  it.each([
    "0000-00-00",
    "0000-00-00 00:00:00",
    "0000-00-00 00:00:00.000000",
    "2020-00-15",
    "2020-05-00 10:00:00",
  ])("%s is a zero date", (value) => expect(isZeroDate(value)).toBe(true));
  it.each(["2020-01-01", "2020-10-10 00:00:00", "2020-05-20 00:00:00.000000", "0000-01-01"])(
    "%s is a real date",
    (value) => expect(isZeroDate(value)).toBe(false),
  );
});

describe("firstDayAfterZeroDate", () => {
  it("steps to the first day of the month, or of the year for month 00", () => {
    expect(firstDayAfterZeroDate("2020-05-00 10:00:00")).toBe("2020-05-01");
    expect(firstDayAfterZeroDate("2020-00-15 01:00:00")).toBe("2020-01-01");
    expect(firstDayAfterZeroDate("2020-00-00")).toBe("2020-01-01");
  });
});
