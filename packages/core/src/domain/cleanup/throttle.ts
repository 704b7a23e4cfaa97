import { setTimeout as sleepFor } from "node:timers/promises";
import { TransientError } from "../../errors";
import type { LoadProbe, RedoFill } from "../../ports/load-probe";
import type { LogFields, Logger } from "../../ports/logger";
import { createLagForecast } from "../pacing/lag-forecast";
import { createRedoSteps } from "../pacing/redo-steps";
import { createThrottleMemory, type ThrottleMemory } from "../pacing/throttle-memory";
import type { CleanupDeps, CleanupSettings } from "./cleanup-deps";

/** How often a throttled task asks again. */
const THROTTLE_POLL_MS = 1_000;
/**
 * How often a task held back by where a replica's lag is heading asks again:
 * the replica catches up moments after it has applied the deletes, and a
 * heartbeat tells it to a tenth of a second.
 */
const FORECAST_POLL_MS = 250;
/** How often a task held back by the redo log asks again: flushing frees it within moments. */
const REDO_POLL_MS = 100;
/** How often a long wait is logged again. */
const LOG_EVERY_MS = 10_000;
/**
 * Below this share of its limit a replica's lag is judged as it reads, not by
 * where it is heading: a heartbeat's own resolution (about 0.1 s) makes the
 * slope of a small lag mostly noise.
 */
const FORECAST_FROM = 0.25;
/**
 * Below this share of its limit a redo log is let through whatever one chunk
 * writes: a chunk that writes more than the limit's share of the log would
 * otherwise never run. It then passes the limit as it did before the step
 * was known.
 */
const REDO_FORECAST_FROM = 0.5;

/** What held a chunk back: one of the throttles, or the configured pause between chunks. */
export type WaitReason = "replicaLag" | "threadsRunning" | "historyLength" | "redo" | "pause";

/** Time spent before chunks, in milliseconds. */
export interface ThrottleWait {
  /** Time held back by load: every throttle, not the pause (as the task's `waitedMs` always counted). */
  readonly waitedMs: number;
  /** Each reason's share, the pause included; a reason that cost nothing is left out. */
  readonly byReason: Readonly<Partial<Record<WaitReason, number>>>;
}

export interface ThrottleOptions {
  readonly probe: LoadProbe;
  readonly settings: Pick<
    CleanupSettings,
    | "pauseMs"
    | "maxReplicaLagSeconds"
    | "maxThreadsRunning"
    | "maxRedoPercent"
    | "maxHistoryLength"
    | "maxWaitMs"
  >;
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

interface Overload {
  readonly reason: WaitReason;
  /** In an operator's words, with the figure and its limit. */
  readonly message: string;
  readonly pollMs: number;
}

/**
 * A cleanup task's throttle, from its deps: their load probe, settings,
 * sleep, and the process-wide pace (or one of its own); `onWait` keeps the
 * task's leases while it waits.
 */
export function taskThrottle(
  deps: Pick<CleanupDeps, "loadProbe" | "settings" | "sleep" | "throttleMemory" | "logger">,
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
  const unknownLogged = new Set<string>();
  const total = newTally();

  /** The first signal over its limit, in the order the throttles are listed in docs/cleanup.md. */
  async function overload(): Promise<Overload | undefined> {
    return (
      (await replicaReason()) ?? (await threadsReason()) ?? (await historyReason()) ?? (await redoReason())
    );
  }

  async function replicaReason(): Promise<Overload | undefined> {
    if (settings.maxReplicaLagSeconds <= 0) return undefined;
    const held = (message: string, pollMs = THROTTLE_POLL_MS): Overload => ({
      reason: "replicaLag",
      message,
      pollMs,
    });
    const limit = settings.maxReplicaLagSeconds;
    // Every replica's figure joins its forecast first, whichever of them holds the chunk.
    const judged = (await probe.replicaLags()).map((lag) => ({
      lag,
      peak: lag.seconds === null ? null : forecast.peak(lag.replica, lag.seconds),
    }));
    for (const { lag, peak } of judged) {
      // Unknown lag is treated as too much: a stopped replica is exactly
      // when deletes should not pile up in its relay log.
      if (lag.seconds === null || peak === null)
        return held(`replica ${lag.replica} lag unknown (${lag.reason ?? "no figure"})`);
      if (lag.seconds > limit) return held(`replica ${lag.replica} lags ${lag.seconds} s (limit ${limit} s)`);
      // Stop before the limit when the lag is rising fast enough to pass it
      // with the chunks already committed and the next one.
      if (lag.seconds >= limit * FORECAST_FROM && peak > limit) {
        return held(
          `replica ${lag.replica} lags ${lag.seconds} s and is heading for ${peak.toFixed(1)} s (limit ${limit} s)`,
          FORECAST_POLL_MS,
        );
      }
    }
    return undefined;
  }

  async function threadsReason(): Promise<Overload | undefined> {
    if (settings.maxThreadsRunning <= 0) return undefined;
    const running = await probe.threadsRunning();
    if (running <= settings.maxThreadsRunning) return undefined;
    return {
      reason: "threadsRunning",
      message: `Threads_running is ${running} (limit ${settings.maxThreadsRunning})`,
      pollMs: THROTTLE_POLL_MS,
    };
  }

  /**
   * Every row a delete removes leaves undo that InnoDB's purge must clear
   * once no open snapshot can still see it. A long history slows every
   * reader on the server (each walks back through more versions), so deleting
   * faster than purge keeps up only moves the cost onto the application.
   */
  const historyReason = () =>
    reportedReason(
      settings.maxHistoryLength,
      probe.historyLength,
      "InnoDB history list length",
      "CLEANUP_MAX_HISTORY_LENGTH",
      (length) =>
        length <= settings.maxHistoryLength
          ? undefined
          : {
              reason: "historyLength",
              message: `InnoDB history list length is ${length} (limit ${settings.maxHistoryLength})`,
              pollMs: THROTTLE_POLL_MS,
            },
    );

  /**
   * Deletes write redo faster than a small or slowly flushed log frees it; past
   * about three quarters full InnoDB stops every writer on the server to flush
   * (seconds-long commits for the application too). Waiting below that keeps
   * each chunk short. A replica applies the same deletes and fills its own log
   * as fast, and stops applying while it flushes: each replica's log is held
   * to the same limit.
   */
  async function redoReason(): Promise<Overload | undefined> {
    const primary = await reportedReason(
      settings.maxRedoPercent,
      probe.redoFill,
      "redo log fill",
      "CLEANUP_MAX_REDO_PERCENT",
      (fill) => redoOverload("redo log", fill),
    );
    if (primary !== undefined || settings.maxRedoPercent <= 0) return primary;
    for (const { replica, fill } of await probe.replicaRedoFills()) {
      const held = fill === null ? undefined : redoOverload(`replica ${replica} redo log`, fill);
      if (held !== undefined) return held;
    }
    return undefined;
  }

  /** Over the limit, or one more chunk like the last ones would take it there (see RedoSteps). */
  function redoOverload(log: string, fill: RedoFill): Overload | undefined {
    const limit = settings.maxRedoPercent;
    const next = redoSteps.next(log, fill.percent);
    if (fill.percent <= limit && (next <= limit || fill.percent < limit * REDO_FORECAST_FROM))
      return undefined;
    const mib = (bytes: number) => Math.round(bytes / 1_048_576);
    const heading = fill.percent > limit ? "" : `, one more chunk takes it to ${Math.round(next)}%`;
    return {
      reason: "redo",
      message: `${log} ${Math.round(fill.percent)}% full (checkpoint age ${mib(fill.checkpointAgeBytes)} of ${mib(fill.capacityBytes)} MiB${heading}, limit ${limit}%)`,
      pollMs: REDO_POLL_MS,
    };
  }

  /**
   * A signal some servers do not report: off at a limit of 0; unreported, it
   * holds nothing (said once in the log); otherwise what `judge` says of it.
   */
  async function reportedReason<T>(
    limit: number,
    read: () => Promise<T | null>,
    figure: string,
    variable: string,
    judge: (value: T) => Overload | undefined,
  ): Promise<Overload | undefined> {
    if (limit <= 0) return undefined;
    const value = await read();
    if (value === null) {
      notReportedOnce(figure, variable);
      return undefined;
    }
    return judge(value);
  }

  function notReportedOnce(figure: string, variable: string): void {
    if (unknownLogged.has(variable)) return;
    logger.info(`${figure} not reported by this server; ${variable} has no effect`, context);
    unknownLogged.add(variable);
  }

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
