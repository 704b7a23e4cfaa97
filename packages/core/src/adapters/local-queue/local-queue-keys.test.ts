import { describe, expect, it } from "vitest";
import { localJobId, localJobIdPrefix, localQueueKeys } from "./local-queue-keys";

describe("localJobId", () => {
  it("encodes (kind, table, day) without colons", () => {
    expect(localJobId({ kind: "copy", table: "orders", day: "2020-01-31" })).toBe("copy|orders|2020-01-31");
    expect(localJobId({ kind: "clean", table: "a$b_1", day: "2020-01-31" })).toBe("clean|a$b_1|2020-01-31");
  });

  it("gives distinct ids to tasks that differ in kind, table or day", () => {
    const ids = new Set([
      localJobId({ kind: "copy", table: "orders", day: "2020-01-01" }),
      localJobId({ kind: "clean", table: "orders", day: "2020-01-01" }),
      localJobId({ kind: "copy", table: "orders2", day: "2020-01-01" }),
      localJobId({ kind: "copy", table: "orders", day: "2020-01-02" }),
    ]);
    expect(ids.size).toBe(4);
  });

  it("starts with the prefix of its (kind, table)", () => {
    const id = localJobId({ kind: "copy", table: "orders", day: "2020-01-01" });
    expect(id.startsWith(localJobIdPrefix("copy", "orders"))).toBe(true);
    expect(id.startsWith(localJobIdPrefix("copy", "order"))).toBe(false);
  });
});

describe("localQueueKeys", () => {
  it("follows BullMQ's layout under the prefix", () => {
    const keys = localQueueKeys("archiver");
    expect(keys.job).toBe("archiver:jobs-migration:");
    expect(keys.failed).toBe("archiver:jobs-migration:failed");
    expect(keys.queuedDays("copy", "orders")).toBe("archiver:jobs-migration:archiver-days:copy:orders");
  });
});
