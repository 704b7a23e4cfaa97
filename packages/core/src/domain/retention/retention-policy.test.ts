import { describe, expect, it } from "vitest";
import { parseCleanupWindow, windowEndAt } from "./cleanup-window";
import { policySchedules } from "./policy-messages";
import { parsePolicies } from "./retention-policy";

const orders = {
  source_table: "orders",
  destination_table: "archive.orders",
  filter_column: "created_at",
  years_to_migrate: 1,
  months_to_migrate: 0,
  migrate_schedule: "0 1 * * *",
  cleanup_schedule: "30 2 * * *",
  time_zone: "Europe/Paris",
  cleanup_window: "22:00-05:00",
  cleanup: "delete",
  max_rows_per_second: 2000,
};

describe("parsePolicies", () => {
  it("takes a list, or `retention:` holding one, with the defaults filled in", () => {
    const [policy] = parsePolicies([{ ...orders, cleanup: undefined }]);
    expect(policy).toMatchObject({ source_table: "orders", cleanup: "dry_run", tasks_enqueued_limit: 20 });
    expect(parsePolicies({ retention: [orders] })).toHaveLength(1);
  });

  it.each([
    [{ time_zone: "Mars/Olympus" }, /retention "orders": time_zone: must be an IANA time zone/],
    [{ time_zone: undefined }, /retention "orders": time_zone: is required/],
    [{ cleanup_window: "22:00-25:00" }, /retention "orders": cleanup_window: must be "HH:MM-HH:MM"/],
    [
      { migrate_schedule: "0 1 * *" },
      /retention "orders": migrate_schedule: must be a cron expression of five fields/,
    ],
    [{ migrate_schedule: "0 1 * * * *" }, /migrate_schedule: must be a cron expression of five fields/],
    [{ cleanup: "yes" }, /retention "orders": cleanup: must be "off", "dry_run" or "delete"/],
    [
      { cleanup_schedule: undefined },
      /retention "orders": cleanup_schedule: is required unless cleanup is "off"/,
    ],
    [{ max_rows_per_second: 0 }, /retention "orders": max_rows_per_second: must be 1 or more/],
  ])("refuses %o, naming the table and the field", (change, message) => {
    expect(() => parsePolicies([{ ...orders, ...change }])).toThrow(message);
  });

  it("names a misspelt field with the one it may be", () => {
    const { time_zone: _, ...misspelt } = { ...orders, time_zon: "UTC" };
    expect(() => parsePolicies([misspelt])).toThrow(
      /retention "orders": time_zon: unknown field; did you mean "time_zone"\?/,
    );
  });

  it("refuses a second policy for one table, and anything but a list", () => {
    expect(() => parsePolicies([orders, orders])).toThrow(
      /retention "orders": source_table: has a second policy/,
    );
    expect(() => parsePolicies({ policies: [] })).toThrow(/retention: must be a list of policies/);
  });

  it("schedules the ordinary messages, naming the policy; none for a cleanup that is off", () => {
    const [policy] = parsePolicies([orders]);
    const schedules = policySchedules(policy as never);
    expect(schedules.map(({ mode, cron, timeZone }) => [mode, cron, timeZone])).toEqual([
      ["migration", "0 1 * * *", "Europe/Paris"],
      ["cleanup", "30 2 * * *", "Europe/Paris"],
    ]);
    expect(schedules[1]?.message).toEqual({
      policy: "orders",
      clean_table: "orders",
      filter_column: "created_at",
      dry_run: false,
      time_zone: "Europe/Paris",
      cleanup_window: "22:00-05:00",
      max_rows_per_second: 2000,
    });
    const [off] = parsePolicies([{ ...orders, cleanup: "off", cleanup_schedule: undefined }]);
    expect(policySchedules(off as never).map(({ mode }) => mode)).toEqual(["migration"]);
  });
});

describe("cleanup windows", () => {
  const window = parseCleanupWindow("22:00-05:00");

  it("is open across midnight in its zone, and says when it closes", () => {
    // 23:30 in Paris on 2026-01-10 is 22:30 UTC; the window closes at 05:00 Paris the next morning.
    expect(
      windowEndAt(window as never, "Europe/Paris", new Date("2026-01-10T22:30:00Z"))?.toISOString(),
    ).toBe("2026-01-11T04:00:00.000Z");
    // 03:00 Paris: still open, closing the same morning.
    expect(
      windowEndAt(window as never, "Europe/Paris", new Date("2026-01-11T02:00:00Z"))?.toISOString(),
    ).toBe("2026-01-11T04:00:00.000Z");
  });

  it("is closed outside it, and a window that does not cross midnight is read as written", () => {
    expect(windowEndAt(window as never, "Europe/Paris", new Date("2026-01-11T12:00:00Z"))).toBeUndefined();
    const day = parseCleanupWindow("09:00-17:30");
    expect(windowEndAt(day as never, "UTC", new Date("2026-01-11T17:29:00Z"))?.toISOString()).toBe(
      "2026-01-11T17:30:00.000Z",
    );
    expect(windowEndAt(day as never, "UTC", new Date("2026-01-11T17:30:00Z"))).toBeUndefined();
    expect(parseCleanupWindow("10:00-10:00")).toBeUndefined();
  });
});
