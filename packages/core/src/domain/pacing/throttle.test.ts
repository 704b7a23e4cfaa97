import { describe, expect, it } from "vitest";
import { silentLogger } from "../../adapters/logging/json-logger";
import { TransientError } from "../../errors";
import type { LoadProbe, RedoFill, ReplicaLag } from "../../ports/load-probe";
import { createNicePace } from "../pacing/nice-pace";
import { createThrottle } from "./throttle";

/** A probe that answers the next figures of its scripts on each call. */
function scriptedProbe(
  lags: (number | null)[],
  threads: number[] = [],
  redo: (number | null)[] = [],
  history: (number | null)[] = [],
  replicaRedo: (number | null)[] = [],
): LoadProbe & { calls: number; redoCalls: number; historyCalls: number; replicaRedoCalls: number } {
  const probe = {
    calls: 0,
    redoCalls: 0,
    historyCalls: 0,
    replicaRedoCalls: 0,
    async replicaLags(): Promise<ReplicaLag[]> {
      // null is a figure here (lag unknown), so no ?? fallback.
      const seconds = lags[Math.min(probe.calls++, lags.length - 1)] as number | null;
      return [{ replica: "r1:3306", seconds, ...(seconds === null ? { reason: "stopped" } : {}) }];
    },
    async threadsRunning() {
      return threads.shift() ?? 1;
    },
    async accessChecks() {
      return [];
    },
    async redoFill(): Promise<RedoFill | null> {
      // The last figure stands once the script runs out, as with lags.
      const percent =
        redo.length > 0 ? (redo[Math.min(probe.redoCalls, redo.length - 1)] as number | null) : 0;
      probe.redoCalls += 1;
      return fillOf(percent);
    },
    async replicaRedoFills() {
      if (replicaRedo.length === 0) return [];
      const percent = replicaRedo[Math.min(probe.replicaRedoCalls, replicaRedo.length - 1)] as number | null;
      probe.replicaRedoCalls += 1;
      return [{ replica: "r1:3306", fill: fillOf(percent) }];
    },
    async historyLength(): Promise<number | null> {
      const length =
        history.length > 0 ? (history[Math.min(probe.historyCalls, history.length - 1)] as number | null) : 0;
      probe.historyCalls += 1;
      return length;
    },
    async close() {},
  };
  return probe;
}

/** A redo log of MariaDB's default 96 MiB, `percent` full. */
function fillOf(percent: number | null): RedoFill | null {
  if (percent === null) return null;
  const capacityBytes = 96 * 1_048_576;
  return { percent, capacityBytes, checkpointAgeBytes: Math.round((percent / 100) * capacityBytes) };
}

const settings = {
  pauseMs: 0,
  maxReplicaLagSeconds: 10,
  maxThreadsRunning: 0,
  maxRedoPercent: 0,
  maxHistoryLength: 0,
  maxWaitMs: 60_000,
};

function throttleWith(probe: LoadProbe, overrides: Partial<typeof settings> = {}) {
  const sleeps: number[] = [];
  let waits = 0;
  const logs: string[] = [];
  const reasons: string[] = [];
  const throttle = createThrottle({
    probe,
    settings: { ...settings, ...overrides },
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    logger: {
      ...silentLogger,
      info: (message) => logs.push(message),
      warn: (message, fields) => {
        logs.push(message);
        if (fields?.reason !== undefined) reasons.push(String(fields.reason));
      },
    },
    context: {},
    onWait: async () => {
      waits += 1;
    },
  });
  return { throttle, sleeps, logs, reasons, waits: () => waits };
}

describe("createThrottle", () => {
  it("rests after each delete as its pace says, the first chunk of a task included, counted as pause", async () => {
    let now = 0;
    const sleeps: number[] = [];
    const sleep = async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    };
    const pace = createNicePace({ ratio: 2, sleep, now: () => now });
    const make = () =>
      createThrottle({
        probe: scriptedProbe([0]),
        settings,
        sleep,
        memory: { pace },
        logger: silentLogger,
        context: {},
      });
    const first = make();
    expect(await first.beforeChunk(true)).toEqual({ waitedMs: 0, byReason: {} });
    now += 30;
    first.afterChunk(30);
    // The next task shares the pace: its first chunk still owes the rest of the last delete.
    const next = make();
    expect(await next.beforeChunk(true)).toEqual({ waitedMs: 0, byReason: { pause: 60 } });
    now += 10;
    next.afterChunk(10);
    now += 15;
    expect(await next.beforeChunk(false)).toEqual({ waitedMs: 0, byReason: { pause: 5 } });
    expect(sleeps).toEqual([60, 5]);
  });

  it("pauses between chunks, never before the first", async () => {
    const { throttle, sleeps } = throttleWith(scriptedProbe([0]), { pauseMs: 250 });
    await throttle.beforeChunk(true);
    expect(sleeps).toEqual([]);
    await throttle.beforeChunk(false);
    expect(sleeps).toEqual([250]);
  });

  it("waits while a replica lags over the limit, and keeps the lease meanwhile", async () => {
    const { throttle, sleeps, waits } = throttleWith(scriptedProbe([30, 12, 11, 10]));
    expect((await throttle.beforeChunk(true)).waitedMs).toBe(3000);
    expect(sleeps).toEqual([1000, 1000, 1000]);
    expect(waits()).toBe(3);
  });

  it("treats an unknown lag as too much", async () => {
    const { throttle } = throttleWith(scriptedProbe([null, null, 0]));
    expect((await throttle.beforeChunk(true)).waitedMs).toBe(2000);
  });

  it("waits while Threads_running is over its limit", async () => {
    const { throttle } = throttleWith(scriptedProbe([0], [50, 41, 40]), {
      maxReplicaLagSeconds: 0,
      maxThreadsRunning: 40,
    });
    expect((await throttle.beforeChunk(true)).waitedMs).toBe(2000);
  });

  it("asks nothing when every throttle is off", async () => {
    const probe = scriptedProbe([999], [999], [99], [999_999]);
    const { throttle } = throttleWith(probe, { maxReplicaLagSeconds: 0 });
    expect((await throttle.beforeChunk(true)).waitedMs).toBe(0);
    expect(probe.calls).toBe(0);
    expect(probe.redoCalls).toBe(0);
    expect(probe.historyCalls).toBe(0);
  });

  it("waits in short steps while the redo log is fuller than its limit", async () => {
    const probe = scriptedProbe([0], [], [80, 62, 51, 50]);
    const { throttle, sleeps, logs } = throttleWith(probe, { maxReplicaLagSeconds: 0, maxRedoPercent: 50 });
    expect((await throttle.beforeChunk(true)).waitedMs).toBe(300);
    expect(sleeps).toEqual([100, 100, 100]);
    expect(logs[0]).toBe("cleanup waiting for load to fall");
  });

  it("holds a chunk while a replica's redo log is fuller than the limit, naming the replica", async () => {
    const probe = scriptedProbe([0], [], [10], [], [85, 80, 60]);
    const { throttle, sleeps, reasons } = throttleWith(probe, { maxRedoPercent: 70 });
    const wait = await throttle.beforeChunk(true);
    expect(sleeps).toEqual([100, 100]);
    expect(wait.byReason.redo).toBe(200);
    expect(reasons[0]).toBe("replica r1:3306 redo log 85% full (checkpoint age 82 of 96 MiB, limit 70%)");
    expect(probe.replicaRedoCalls).toBe(3);
  });

  it("holds a chunk that would take a redo log past its limit, from what the chunks before it wrote", async () => {
    // Before the first chunk 70%, before the second 73%: a chunk fills 3 points, so 73% would end at 76%.
    // Held at 73% twice, let through at 72% (heading for 75%).
    const probe = scriptedProbe([0], [], [70, 73, 73, 72]);
    const { throttle, sleeps, reasons } = throttleWith(probe, {
      maxReplicaLagSeconds: 0,
      maxRedoPercent: 75,
    });
    expect((await throttle.beforeChunk(true)).waitedMs).toBe(0);
    throttle.afterChunk(50);
    const wait = await throttle.beforeChunk(false);
    expect(sleeps).toEqual([100, 100]);
    expect(wait.byReason.redo).toBe(200);
    expect(reasons[0]).toBe(
      "redo log 73% full (checkpoint age 70 of 96 MiB, one more chunk takes it to 76%, limit 75%)",
    );
  });

  it("looks ahead on each replica's redo log too, one log's chunks apart from another's", async () => {
    const probe = scriptedProbe([0], [], [10], [], [60, 68, 60]);
    const { throttle, sleeps, reasons } = throttleWith(probe, { maxRedoPercent: 70 });
    await throttle.beforeChunk(true);
    throttle.afterChunk(50);
    await throttle.beforeChunk(false);
    expect(sleeps).toEqual([100]);
    expect(reasons[0]).toMatch(
      /^replica r1:3306 redo log 68% full .*one more chunk takes it to 76%, limit 70%\)$/,
    );
  });

  it("lets a chunk through below half the limit, however much one chunk writes", async () => {
    // A chunk that writes 40 points of a 30% limit would never run if the step alone decided.
    const probe = scriptedProbe([0], [], [0, 40, 25, 14]);
    const { throttle, sleeps } = throttleWith(probe, { maxReplicaLagSeconds: 0, maxRedoPercent: 30 });
    await throttle.beforeChunk(true);
    throttle.afterChunk(50);
    const wait = await throttle.beforeChunk(false);
    // Held at 40% (over the limit) and at 25% (heading for 65%), let through at 14%.
    expect(sleeps).toEqual([100, 100]);
    expect(wait.byReason.redo).toBe(200);
  });

  it("reads no replica's redo while the limit is off, and holds nothing for a replica that does not report it", async () => {
    const off = scriptedProbe([0], [], [10], [], [95]);
    await throttleWith(off).throttle.beforeChunk(true);
    expect(off.replicaRedoCalls).toBe(0);
    const unreported = scriptedProbe([0], [], [10], [], [null]);
    const wait = await throttleWith(unreported, { maxRedoPercent: 70 }).throttle.beforeChunk(true);
    expect(wait.waitedMs).toBe(0);
  });

  it("names the redo figures when it gives up", async () => {
    const probe = scriptedProbe([0], [], [90]);
    const { throttle } = throttleWith(probe, { maxReplicaLagSeconds: 0, maxRedoPercent: 50, maxWaitMs: 300 });
    await expect(throttle.beforeChunk(true)).rejects.toThrow(
      /redo log 90% full \(checkpoint age 86 of 96 MiB, limit 50%\)/,
    );
  });

  it("goes on, saying so once, when the server does not report its redo fill", async () => {
    const probe = scriptedProbe([0], [], [null, null]);
    const { throttle, sleeps, logs } = throttleWith(probe, { maxReplicaLagSeconds: 0, maxRedoPercent: 50 });
    expect((await throttle.beforeChunk(true)).waitedMs).toBe(0);
    expect((await throttle.beforeChunk(false)).waitedMs).toBe(0);
    expect(sleeps).toEqual([]);
    expect(logs).toEqual([
      "redo log fill not reported by this server; CLEANUP_MAX_REDO_PERCENT has no effect",
    ]);
  });

  it("gives up with a TransientError after the longest wait", async () => {
    const { throttle, sleeps } = throttleWith(scriptedProbe([30]), { maxWaitMs: 2500 });
    const run = throttle.beforeChunk(true);
    await expect(run).rejects.toBeInstanceOf(TransientError);
    await expect(
      throttleWith(scriptedProbe([30]), { maxWaitMs: 2500 }).throttle.beforeChunk(true),
    ).rejects.toThrow(/lags 30 s \(limit 10 s\)/);
    expect(sleeps).toEqual([1000, 1000, 500]);
  });

  it("waits while InnoDB's history list is longer than its limit, naming the figure", async () => {
    const probe = scriptedProbe([0], [], [], [250_000, 120_000, 100_000]);
    const { throttle, sleeps, logs } = throttleWith(probe, {
      maxReplicaLagSeconds: 0,
      maxHistoryLength: 100_000,
    });
    expect(await throttle.beforeChunk(true)).toEqual({ waitedMs: 2000, byReason: { historyLength: 2000 } });
    expect(sleeps).toEqual([1000, 1000]);
    expect(logs[0]).toBe("cleanup waiting for load to fall");
    await expect(
      throttleWith(scriptedProbe([0], [], [], [250_000]), {
        maxReplicaLagSeconds: 0,
        maxHistoryLength: 100_000,
        maxWaitMs: 1000,
      }).throttle.beforeChunk(true),
    ).rejects.toThrow(/InnoDB history list length is 250000 \(limit 100000\)/);
  });

  it("goes on, saying so once, when the server does not report its history length", async () => {
    const probe = scriptedProbe([0], [], [], [null]);
    const { throttle, logs } = throttleWith(probe, { maxReplicaLagSeconds: 0, maxHistoryLength: 10 });
    expect((await throttle.beforeChunk(true)).waitedMs).toBe(0);
    expect((await throttle.beforeChunk(false)).waitedMs).toBe(0);
    expect(logs).toEqual([
      "InnoDB history list length not reported by this server; CLEANUP_MAX_HISTORY_LENGTH has no effect",
    ]);
  });

  it("reports the time waited by reason, the pause apart from the load, and keeps the day's totals", async () => {
    // Lag over for one poll, then Threads_running for two, then the redo log for three short ones.
    const probe = scriptedProbe([30, 0], [50, 1, 1, 1, 1, 50], [90, 90, 90, 10]);
    const { throttle, logs } = throttleWith(probe, {
      pauseMs: 250,
      maxThreadsRunning: 40,
      maxRedoPercent: 50,
    });
    const first = await throttle.beforeChunk(true);
    expect(first).toEqual({
      waitedMs: 2300,
      byReason: { replicaLag: 1000, threadsRunning: 1000, redo: 300 },
    });
    const second = await throttle.beforeChunk(false);
    expect(second).toEqual({ waitedMs: 1000, byReason: { pause: 250, threadsRunning: 1000 } });
    expect(throttle.totals()).toEqual({
      waitedMs: 3300,
      byReason: { replicaLag: 1000, threadsRunning: 2000, redo: 300, pause: 250 },
    });
    expect(logs.filter((line) => line === "cleanup resumes after waiting")).toHaveLength(2);
  });
});
