import { describe, expect, it } from "vitest";
import type { Partitioning } from "../../../ports/partitioned-table";
import { type PathFacts, partitionPaths } from "./partition-paths";

const monthly: Partitioning = {
  kind: "range",
  column: "created_at",
  partitions: [
    { name: "p2024_01", below: "2024-02-01 00:00:00" },
    { name: "p2024_02", below: "2024-03-01 00:00:00" },
    { name: "pmax", below: undefined },
  ],
};

const facts: PathFacts = {
  column: "created_at",
  sideEffects: { referencingKeys: [], deleteTriggers: [] },
  exchange: { ok: true },
};

const pending = ["2024-01-05", "2024-01-31", "2024-02-01", "2024-03-10"];

describe("the path of each partition's days", () => {
  it("sends whole-day partitions to the exchange and the MAXVALUE partition's days to the chunked path", () => {
    expect(partitionPaths(monthly, pending, facts)).toEqual({
      partitions: [
        { partition: "p2024_01", path: "exchange", days: ["2024-01-05", "2024-01-31"] },
        { partition: "p2024_02", path: "exchange", days: ["2024-02-01"] },
        {
          partition: "pmax",
          path: "chunked",
          days: ["2024-03-10"],
          reason: "it is the MAXVALUE partition, where new rows arrive",
        },
      ],
      rest: ["2024-03-10"],
    });
  });

  it("keeps every day on the chunked path for a table the exchange cannot serve, saying why", () => {
    const reasons = [
      [
        { ...facts, column: "updated_at" },
        /partitioned by "created_at", not by the filter column "updated_at"/,
      ],
      [
        { ...facts, sideEffects: { referencingKeys: [], deleteTriggers: ["audit"] } },
        /DELETE triggers \(audit\)/,
      ],
      [{ ...facts, exchange: { ok: false, grant: "GRANT X" } }, /grant it with: GRANT X/],
    ] as const;
    for (const [changed, reason] of reasons) {
      const paths = partitionPaths(monthly, pending, changed);
      expect(paths.rest).toEqual(pending);
      expect(paths.partitions.every((p) => p.path === "chunked" && reason.test(p.reason ?? ""))).toBe(true);
    }
  });

  it("keeps partitions whose bounds are not midnights on the chunked path, and days past the last bound too", () => {
    const halfDays: Partitioning = {
      kind: "range",
      column: "created_at",
      partitions: [
        { name: "a", below: "2024-01-02 00:00:00" },
        { name: "b", below: "2024-01-02 12:00:00" },
        { name: "c", below: "2024-01-04 00:00:00" },
      ],
    };
    const paths = partitionPaths(halfDays, ["2024-01-01", "2024-01-02", "2024-01-03", "2024-01-09"], facts);
    expect(paths.partitions.map((p) => [p.partition, p.path, p.days])).toEqual([
      ["a", "exchange", ["2024-01-01"]],
      ["b", "chunked", ["2024-01-02"]],
      ["c", "chunked", ["2024-01-03"]],
    ]);
    expect(paths.rest).toEqual(["2024-01-02", "2024-01-03", "2024-01-09"]);
  });

  it("keeps a partition an interrupted task left detached with its task, whatever the table looks like now", () => {
    const revoked = { ...facts, exchange: { ok: false }, detached: new Set(["p2024_02"]) };
    expect(partitionPaths(monthly, pending, revoked).partitions.map((p) => [p.partition, p.path])).toEqual([
      ["p2024_01", "chunked"],
      ["p2024_02", "exchange"],
      ["pmax", "chunked"],
    ]);
  });

  it("leaves an unpartitioned table alone", () => {
    expect(partitionPaths({ kind: "none" }, pending, facts)).toEqual({ partitions: [], rest: pending });
  });
});
