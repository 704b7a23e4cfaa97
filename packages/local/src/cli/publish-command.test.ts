import type { TablePlan } from "@table-archiver/core";
import { describe, expect, it } from "vitest";
import { acceptedLines } from "./publish-command";

const plan = (extra: Partial<TablePlan>): TablePlan => ({
  table: "orders",
  destination: "archive.orders_v2",
  cutoff: "2025-06-01",
  days: [],
  added: 0,
  alreadyQueued: 0,
  migratedElsewhere: 0,
  otherDestinations: [],
  planMs: 1,
  ...extra,
});

describe("acceptedLines of a migration", () => {
  it("says when days of the range live in another destination, rather than a bare 0 days enqueued", () => {
    expect(
      acceptedLines({
        outcome: "migration",
        plans: [plan({ migratedElsewhere: 365, otherDestinations: ["archive.orders"] })],
      }),
    ).toEqual([
      "accepted: orders: 0 days enqueued, cutoff 2025-06-01; 365 days of the range already migrated to " +
        "archive.orders, not archive.orders_v2 (each day is copied once)",
    ]);
  });

  it("says nothing of other destinations when there are none", () => {
    expect(
      acceptedLines({
        outcome: "migration",
        plans: [plan({ added: 2, days: ["2020-01-01", "2020-01-02"] })],
      }),
    ).toEqual(["accepted: orders: 2 days enqueued (2020-01-01 .. 2020-01-02), cutoff 2025-06-01"]);
  });
});
