import type { LoadProbe, RedoFill } from "../../ports/load-probe";
import type { LogFields, Logger } from "../../ports/logger";
import type { LagForecast } from "./lag-forecast";
import type { RedoSteps } from "./redo-steps";
import type { ThrottleSettings, WaitReason } from "./throttle-settings";

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

/** A signal over its limit: what holds the next chunk back, and how soon to ask again. */
export interface Overload {
  readonly reason: WaitReason;
  /** In an operator's words, with the figure and its limit. */
  readonly message: string;
  readonly pollMs: number;
}

/**
 * Reads the load signals the throttle watches, in the order docs/cleanup.md
 * lists them, and answers the first one over its limit (undefined when none
 * is): replica lag, or where it is heading (see LagForecast); Threads_running;
 * InnoDB's history list length; redo-log fill, the primary's and each
 * replica's, now or after one more chunk (see RedoSteps).
 */
export function createOverloadCheck(options: {
  readonly probe: LoadProbe;
  readonly settings: ThrottleSettings;
  readonly forecast: LagForecast;
  readonly redoSteps: RedoSteps;
  readonly logger: Logger;
  /** Fields every log line carries (table, day). */
  readonly context: LogFields;
}): () => Promise<Overload | undefined> {
  const { probe, settings, forecast, redoSteps, logger, context } = options;
  const unknownLogged = new Set<string>();

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

  return overload;
}
