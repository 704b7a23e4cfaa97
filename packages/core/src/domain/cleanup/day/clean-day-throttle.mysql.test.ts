import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanupFixture, fx } from "../../../testing/cleanup/file-fixture";
import { cleanTask } from "../../../testing/cleanup-fixture";
import { cleanDay } from "./clean-day";

// A throttle that gives up, and the retry that resumes: clean-day-resume.mysql.test.ts.

beforeAll(cleanupFixture.create);
afterAll(cleanupFixture.close);

describe("throttle", () => {
  it("waits while a replica lags over the limit, then deletes", async () => {
    const table = await fx.keyedTable(["2024-07-01"], 4);
    await fx.copy(table, "2024-07-01");
    fx.probe.lags = [{ replica: "replica-1:3306", seconds: 30 }];
    fx.probe.polls = 0;
    fx.sleeps.length = 0;
    const deps = fx.deps({
      settings: { maxReplicaLagSeconds: 10, chunkRows: 2 },
      sleep: async (ms) => {
        fx.sleeps.push(ms);
        // Lag falls after three polls; until then not a row may go.
        if (fx.sleeps.length === 3) {
          expect(await fx.idsOn(table, "2024-07-01")).toHaveLength(4);
          fx.probe.lags = [{ replica: "replica-1:3306", seconds: 2 }];
        }
      },
    });

    const report = await cleanDay(deps, cleanTask(table, "2024-07-01"));

    expect(fx.sleeps).toEqual([1000, 1000, 1000]);
    expect(report).toMatchObject({ outcome: "cleaned", waitedMs: 3000, rowsDeleted: 4 });
    expect(fx.logs.some((l) => l.message === "cleanup waiting for load to fall" && l.table === table)).toBe(
      true,
    );
  });

  it("holds chunks back while the redo log is fuller than its limit", async () => {
    const table = await fx.keyedTable(["2024-07-03"], 4);
    await fx.copy(table, "2024-07-03");
    const fill = (percent: number) => ({
      percent,
      capacityBytes: 100 * 1_048_576,
      checkpointAgeBytes: percent * 1_048_576,
    });
    fx.probe.redo = fill(80);
    fx.sleeps.length = 0;
    const deps = fx.deps({
      settings: { maxRedoPercent: 50, chunkRows: 2 },
      sleep: async (ms) => {
        fx.sleeps.push(ms);
        if (fx.sleeps.length === 2) {
          expect(await fx.idsOn(table, "2024-07-03")).toHaveLength(4);
          fx.probe.redo = fill(20);
        }
      },
    });
    try {
      const report = await cleanDay(deps, cleanTask(table, "2024-07-03"));
      expect(fx.sleeps).toEqual([100, 100]);
      expect(report).toMatchObject({ outcome: "cleaned", waitedMs: 200, rowsDeleted: 4, chunks: 2 });
    } finally {
      fx.probe.redo = null;
    }
  });

  it("a day of one chunk the throttle gave up on records nothing, and the retry verifies it afresh", async () => {
    const table = await fx.keyedTable(["2024-07-04"], 4);
    await fx.copy(table, "2024-07-04");
    fx.probe.lags = [{ replica: "replica-1:3306", seconds: null, reason: "replication not running" }];
    const settings = { maxReplicaLagSeconds: 10, replicaUrls: ["mysql://replica-1"], maxWaitMs: 5000 };
    await expect(cleanDay(fx.deps({ settings }), cleanTask(table, "2024-07-04"))).rejects.toThrow(
      /lag unknown/,
    );
    fx.probe.lags = [];
    expect(await fx.deps().state.read({ table, day: "2024-07-04" })).toBeUndefined();
    await fx.query(`UPDATE \`${table}\` SET note = 'refunded' WHERE id = 2`);

    await expect(cleanDay(fx.deps({ settings }), cleanTask(table, "2024-07-04"))).rejects.toMatchObject({
      reason: "changed",
    });
    expect(await fx.idsOn(table, "2024-07-04")).toHaveLength(4);
  });
});
