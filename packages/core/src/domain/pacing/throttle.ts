import { setTimeout as sleepFor } from "node:timers/promises";
import { TransientError } from "../../errors";
import type { LoadProbe } from "../../ports/load-probe";
import type { LogFields, Logger } from "../../ports/logger";
import { createLagForecast } from "./lag-forecast";
import { createOverloadCheck } from "./load-signals";
import { createRedoSteps } from "./redo-steps";
import { createThrottleMemory, type ThrottleMemory } from "./throttle-memory";
import type { ThrottleSettings, WaitReason } from "./throttle-settings";

export type { ThrottleSettings, WaitReason } from "./throttle-settings";

/** How often a long wait is logged again. */
const LOG_EVERY_MS = 10_000;

/** Time spent before chunks, in milliseconds. */
export interface ThrottleWait {
  /** Time held back by load: every throttle, not the pause (as the task's `waitedMs` always counted). */
  readonly waitedMs: number;
  /** Each reason's share, the pause included; a reason that cost nothing is left out. */
  readonly byReason: Readonly<Partial<Record<WaitReason, number>>>;
}

export interface ThrottleOptions {
  readonly probe: LoadProbe;
  readonly settings: ThrottleSettings;
  readonly sleep: (ms: number) => Promise<void>;
  /**
   * What the days one process cleans share (see ThrottleMemory). Without a
   * pace there is no rest after a delete; without a lag forecast or redo
   * steps the throttle keeps its own.
   */
  readonly memory?: Partial<ThrottleMemory>;
  readonly logger: Logger;
  /** Fields every log line of this throttle carries (table, day). */
  readonly context: LogFields;
  /** Called on every poll while waiting, so the task can keep its lease. */
  readonly onWait?: () => Promise<void>;
}

/** Paces one day's chunks. */
export interface Throttle {
  /**
   * Waits before a chunk: the configured pause (except before the first chunk
   * of a run) and the rest the pace says the last delete left owing, then for as long as any replica lags over the limit
   * or is heading past it (see LagForecast), lag is unknown, Threads_running is over the limit, InnoDB's history list is
   * longer than allowed, or its checkpoint age fills more of a redo log
   * than allowed or would after one more chunk (see RedoSteps). Resolves with the time spent, by reason; throws
   * TransientError after `maxWaitMs` of waiting for load, so the queue
   * retries the task later and the day resumes where it stopped.
   */
  beforeChunk(first: boolean): Promise<ThrottleWait>;
  /** Records how long the chunk's delete kept the server busy: the pace's rest and the lag forecast follow from it. */
  afterChunk(ms: number): void;
  /** Everything this throttle has waited so far, over all its chunks (for the task's log line). */
  totals(): ThrottleWait;
}

/**
 * A cleanup task's throttle, from its deps: their load probe, settings,
 * sleep, and the process-wide pace (or one of its own); `onWait` keeps the
 * task's leases while it waits.
 */
export function taskThrottle(
  deps: {
    readonly loadProbe: LoadProbe;
    readonly settings: ThrottleSettings & { readonly niceRatio: number };
    readonly sleep?: (ms: number) => Promise<void>;
    readonly throttleMemory?: ThrottleMemory;
    readonly logger: Logger;
  },
  context: LogFields,
  onWait: () => Promise<void>,
): Throttle {
  const sleep = deps.sleep ?? ((ms: number) => sleepFor(ms));
  return createThrottle({
    probe: deps.loadProbe,
    settings: deps.settings,
    sleep,
    memory: deps.throttleMemory ?? createThrottleMemory(deps.settings.niceRatio, sleep),
    logger: deps.logger,
    context,
    onWait,
  });
}

export function createThrottle(options: ThrottleOptions): Throttle {
  const { probe, settings, sleep, logger, context } = options;
  const pace = options.memory?.pace;
  const forecast = options.memory?.lagForecast ?? createLagForecast();
  const redoSteps = options.memory?.redoSteps ?? createRedoSteps();
  const overload = createOverloadCheck({ probe, settings, forecast, redoSteps, logger, context });
  const total = newTally();

  return {
    async beforeChunk(first) {
      const chunk = newTally();
      if (!first && settings.pauseMs > 0) {
        await sleep(settings.pauseMs);
        chunk.add("pause", settings.pauseMs);
      }
      const rested = (await pace?.rest()) ?? 0;
      if (rested > 0) chunk.add("pause", rested);
      let lastLog = -Infinity;
      for (;;) {
        const busy = await overload();
        if (busy === undefined) {
          const wait = chunk.wait();
          if (wait.waitedMs > 0) {
            logger.info("cleanup resumes after waiting", {
              ...context,
              waitedMs: wait.waitedMs,
              waitedByReason: wait.byReason,
            });
          }
          total.addAll(wait);
          return wait;
        }
        const waited = chunk.wait().waitedMs;
        if (waited >= settings.maxWaitMs) {
          total.addAll(chunk.wait());
          throw new TransientError(
            `cleanup waited ${Math.round(waited / 1000)} s and ${busy.message}; the task will be retried and resume`,
          );
        }
        if (waited - lastLog >= LOG_EVERY_MS) {
          logger.warn("cleanup waiting for load to fall", {
            ...context,
            reason: busy.message,
            signal: busy.reason,
            waitedMs: waited,
          });
          lastLog = waited;
        }
        await options.onWait?.();
        const step = Math.min(busy.pollMs, settings.maxWaitMs - waited);
        await sleep(step);
        chunk.add(busy.reason, step);
      }
    },
    afterChunk(ms) {
      pace?.worked(ms);
      forecast.chunkRan(ms);
      redoSteps.chunkRan();
    },
    totals: () => total.wait(),
  };
}

/** Milliseconds per reason, summed. */
function newTally() {
  const byReason: Partial<Record<WaitReason, number>> = {};
  const tally = {
    add(reason: WaitReason, ms: number) {
      byReason[reason] = (byReason[reason] ?? 0) + ms;
    },
    addAll(wait: ThrottleWait) {
      for (const [reason, ms] of Object.entries(wait.byReason)) tally.add(reason as WaitReason, ms);
    },
    wait(): ThrottleWait {
      let waitedMs = 0;
      for (const [reason, ms] of Object.entries(byReason)) if (reason !== "pause") waitedMs += ms;
      return { waitedMs, byReason: { ...byReason } };
    },
  };
  return tally;
}
