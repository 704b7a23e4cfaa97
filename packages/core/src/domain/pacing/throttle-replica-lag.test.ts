import { describe, expect, it } from "vitest";
import { silentLogger } from "../../adapters/logging/json-logger";
import type { LoadProbe } from "../../ports/load-probe";
import { createLagForecast, type LagForecast } from "../pacing/lag-forecast";
import { createThrottle } from "./throttle";

const HEARTBEAT_MS = 100;

/**
 * A replica that applies the primary's transactions in commit order, one at
 * a time, at `speed` of the pace they were written at, with a heartbeat row
 * written on the primary every 100 ms. Its lag is the age of the newest
 * heartbeat it has applied, as pt-heartbeat measures it.
 */
function slowReplica(speed: number) {
  const chunks: { committed: number; applyMs: number }[] = [];
  return {
    commit(at: number, ms: number) {
      chunks.push({ committed: at, applyMs: ms / speed });
    },
    lagAt(now: number): number {
      let free = 0;
      let applied = 0;
      let next = 0;
      for (let beat = 0; beat <= now; beat += HEARTBEAT_MS) {
        for (let chunk = chunks[next]; chunk && chunk.committed <= beat; chunk = chunks[++next]) {
          free = Math.max(free, chunk.committed) + chunk.applyMs;
        }
        free = Math.max(free, beat);
        if (free > now) break;
        applied = beat;
      }
      return (now - applied) / 1000;
    },
  };
}

/** A probe that reads only replica lag, each call's figures from `lags` (one per replica, r1, r2...). */
function lagsProbe(lags: () => readonly number[]): LoadProbe {
  return {
    replicaLags: async () => lags().map((seconds, index) => ({ replica: `r${index + 1}:3306`, seconds })),
    accessChecks: async () => [],
    threadsRunning: async () => 0,
    redoFill: async () => null,
    replicaRedoFills: async () => [],
    historyLength: async () => null,
    close: async () => {},
  };
}

/** The replica-lag throttle alone, at a 1 s limit. */
const LAG_ONLY = {
  pauseMs: 0,
  maxReplicaLagSeconds: 1,
  maxThreadsRunning: 0,
  maxRedoPercent: 0,
  maxHistoryLength: 0,
  maxWaitMs: 3_600_000,
};

/**
 * Cleans `chunks` chunks of `chunkMs` each against a replica applying at
 * `speed`, throttled at a 1 s lag; answers the worst lag the replica showed,
 * until it caught up, and the time the cleanup took.
 */
async function cleanAgainst(speed: number, forecastOf: (now: () => number) => LagForecast, chunks = 30) {
  const chunkMs = 200;
  let now = 0;
  const replica = slowReplica(speed);
  const throttle = createThrottle({
    probe: lagsProbe(() => [Math.round(replica.lagAt(now) * 100) / 100]),
    settings: LAG_ONLY,
    sleep: async (ms) => {
      now += ms;
    },
    memory: { lagForecast: forecastOf(() => now) },
    logger: silentLogger,
    context: {},
  });
  for (let chunk = 0; chunk < chunks; chunk += 1) {
    await throttle.beforeChunk(chunk === 0);
    now += chunkMs;
    replica.commit(now, chunkMs);
    throttle.afterChunk(chunkMs);
  }
  let worst = 0;
  for (let at = 0; at <= now + 60_000; at += 10) worst = Math.max(worst, replica.lagAt(at));
  return { worst, tookMs: now, waitedMs: throttle.totals().waitedMs };
}

/** A forecast that answers the lag as it reads: the throttle as it was before it looked ahead. */
const lagAsItReads = (): LagForecast => ({ peak: (_replica, seconds) => seconds, chunkRan: () => {} });

describe("the replica-lag throttle against a replica slower than the primary", () => {
  for (const speed of [0.5, 0.7]) {
    it(`keeps the lag within its limit where it applies at ${speed} of the primary's pace`, async () => {
      const reactive = await cleanAgainst(speed, lagAsItReads);
      const ahead = await cleanAgainst(speed, (now) => createLagForecast({ now }));
      // Stopping once the lag reads over the limit lets it run past the limit:
      // what was committed before is still to be applied.
      expect(reactive.worst).toBeGreaterThan(1.3);
      expect(ahead.worst).toBeLessThanOrEqual(1);
      expect(ahead.waitedMs).toBeGreaterThan(0);
      // It holds back not much longer than the replica needs to apply the work.
      expect(ahead.tookMs).toBeLessThan((1.6 * (30 * 200)) / speed);
    });
  }

  it("holds nothing back where the replica keeps up", async () => {
    const ahead = await cleanAgainst(1.5, (now) => createLagForecast({ now }));
    expect(ahead.waitedMs).toBe(0);
    expect(ahead.worst).toBeLessThan(0.5);
  });
});

describe("the replica-lag throttle with several replicas", () => {
  it("gives every replica's figure to the forecast, also while another replica holds the chunk", async () => {
    const answers = [
      [5, 0.1],
      [0, 0.2],
    ];
    let call = 0;
    const seen: string[] = [];
    const throttle = createThrottle({
      probe: lagsProbe(() => answers[Math.min(call++, answers.length - 1)] ?? []),
      settings: LAG_ONLY,
      sleep: async () => {},
      memory: {
        lagForecast: {
          peak: (replica, seconds) => {
            seen.push(`${replica} ${seconds}`);
            return seconds;
          },
          chunkRan: () => {},
        },
      },
      logger: silentLogger,
      context: {},
    });
    const wait = await throttle.beforeChunk(true);
    expect(wait.byReason.replicaLag).toBe(1_000);
    expect(seen).toEqual(["r1:3306 5", "r2:3306 0.1", "r1:3306 0", "r2:3306 0.2"]);
  });
});
