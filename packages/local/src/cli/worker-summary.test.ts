import { describe, expect, it } from "vitest";
import type { FailedTask, WorkerOutcomes } from "../worker/run-worker";
import { failureLine, summarizeOutcomes } from "./worker-summary";

const none: WorkerOutcomes = {
  copied: { days: 0, rows: 0 },
  cleanup: { cleaned: 0, alreadyClean: 0, alreadyDone: 0, rowsDeleted: 0 },
  failed: [],
  retried: 0,
};
const refused = (day: string, reason?: string): FailedTask => ({
  task: { kind: "clean", table: "orders", filterColumn: "created_at", day },
  jobId: `clean|orders|${day}`,
  code: "VERIFICATION_FAILED",
  reason,
  message: `orders ${day}: figures differ`,
});
const failed: FailedTask = {
  task: {
    kind: "copy",
    table: "orders",
    destination: "orders_archive",
    filterColumn: "created_at",
    day: "2020-01-09",
  },
  jobId: "copy|orders|2020-01-09",
  code: "TRANSIENT",
  reason: undefined,
  message: "mysql is unreachable",
};

describe("summarizeOutcomes", () => {
  it("says everything that happened, with thousands separators and plurals", () => {
    expect(
      summarizeOutcomes({
        copied: { days: 12, rows: 34_567 },
        cleanup: { cleaned: 10, alreadyClean: 2, alreadyDone: 1, rowsDeleted: 12_345 },
        failed: [refused("2020-01-01", "changed"), refused("2020-01-02", "foreign-key"), failed],
        retried: 3,
      }),
    ).toBe(
      "12 days copied (34,567 rows); 10 days cleaned (12,345 rows deleted), 2 already clean, 1 already done; " +
        "2 days refused (1 changed, 1 foreign-key); 1 failed for good",
    );
  });

  it("leaves out the parts that are zero, but never the failures", () => {
    expect(summarizeOutcomes(none)).toBe("nothing copied or cleaned; 0 failed for good");
    expect(summarizeOutcomes({ ...none, copied: { days: 1, rows: 1 } })).toBe(
      "1 day copied (1 row); 0 failed for good",
    );
    expect(summarizeOutcomes({ ...none, cleanup: { ...none.cleanup, alreadyClean: 1 } })).toBe(
      "1 day already clean; 0 failed for good",
    );
  });

  it("names the reason once when every refusal has the same, and says other when an error had none", () => {
    expect(
      summarizeOutcomes({
        ...none,
        failed: [refused("2020-01-01", "changed"), refused("2020-01-02", "changed")],
      }),
    ).toBe("2 days refused (changed); 0 failed for good");
    expect(summarizeOutcomes({ ...none, failed: [refused("2020-01-01")] })).toBe(
      "1 day refused (other); 0 failed for good",
    );
  });
});

describe("failureLine", () => {
  it("says refused for a refusal, naming the day once", () => {
    expect(failureLine(refused("2020-01-01", "changed"))).toBe("refused: orders 2020-01-01: figures differ");
  });

  it("says failed, with the task's kind, for anything else", () => {
    expect(failureLine(failed)).toBe("failed: orders 2020-01-09 (copy): mysql is unreachable");
    expect(failureLine({ ...failed, task: undefined, jobId: "42", code: "INVALID_INPUT" })).toBe(
      "failed: job 42: mysql is unreachable",
    );
  });
});
