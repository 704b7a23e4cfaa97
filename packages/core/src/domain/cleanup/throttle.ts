import { TransientError } from "../../errors";
import type { LoadProbe } from "../../ports/load-probe";
import type { LogFields, Logger } from "../../ports/logger";
import type { CleanupSettings } from "./cleanup-deps";

/** How often a throttled task asks again. */
const THROTTLE_POLL_MS = 1_000;
/** How often a task held back by the redo log asks again: flushing frees it within moments. */
const REDO_POLL_MS = 100;
/** How often a long wait is logged again. */
const LOG_EVERY_MS = 10_000;

export interface ThrottleOptions {
  readonly probe: LoadProbe;
  readonly settings: Pick<
    CleanupSettings,
    "pauseMs" | "maxReplicaLagSeconds" | "maxThreadsRunning" | "maxRedoPercent" | "maxWaitMs"
  >;
  readonly sleep: (ms: number) => Promise<void>;
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
   * of a run), then for as long as any replica lags over the limit, lag is
   * unknown, Threads_running is over the limit, or InnoDB's checkpoint age
   * fills more of the redo log than allowed. Resolves with the time
   * spent waiting for load; throws TransientError after `maxWaitMs`, so the
   * queue retries the task later and the day resumes where it stopped.
   */
  beforeChunk(first: boolean): Promise<number>;
}

export function createThrottle(options: ThrottleOptions): Throttle {
  const { probe, settings, sleep, logger, context } = options;
  let redoUnknownLogged = false;

  async function overload(): Promise<{ reason: string; pollMs: number } | undefined> {
    const busy = await loadReason();
    if (busy !== undefined) return { reason: busy, pollMs: THROTTLE_POLL_MS };
    const redo = await redoReason();
    return redo === undefined ? undefined : { reason: redo, pollMs: REDO_POLL_MS };
  }

  /**
   * Deletes write redo faster than a small or slowly flushed log frees it; past
   * about three quarters full InnoDB stops every writer on the server to flush
   * (seconds-long commits for the application too). Waiting below that keeps
   * each chunk short. A server that does not report the figure is not held.
   */
  async function redoReason(): Promise<string | undefined> {
    if (settings.maxRedoPercent <= 0) return undefined;
    const fill = await probe.redoFill();
    if (fill === null) {
      if (!redoUnknownLogged) {
        logger.info(
          "redo log fill not reported by this server; CLEANUP_MAX_REDO_PERCENT has no effect",
          context,
        );
        redoUnknownLogged = true;
      }
      return undefined;
    }
    if (fill.percent <= settings.maxRedoPercent) return undefined;
    const mib = (bytes: number) => Math.round(bytes / 1_048_576);
    return `redo log ${Math.round(fill.percent)}% full (checkpoint age ${mib(fill.checkpointAgeBytes)} of ${mib(fill.capacityBytes)} MiB, limit ${settings.maxRedoPercent}%)`;
  }

  async function loadReason(): Promise<string | undefined> {
    if (settings.maxReplicaLagSeconds > 0) {
      for (const lag of await probe.replicaLags()) {
        // Unknown lag is treated as too much: a stopped replica is exactly
        // when deletes should not pile up in its relay log.
        if (lag.seconds === null) return `replica ${lag.replica} lag unknown (${lag.reason ?? "no figure"})`;
        if (lag.seconds > settings.maxReplicaLagSeconds) {
          return `replica ${lag.replica} lags ${lag.seconds} s (limit ${settings.maxReplicaLagSeconds} s)`;
        }
      }
    }
    if (settings.maxThreadsRunning > 0) {
      const running = await probe.threadsRunning();
      if (running > settings.maxThreadsRunning) {
        return `Threads_running is ${running} (limit ${settings.maxThreadsRunning})`;
      }
    }
    return undefined;
  }

  return {
    async beforeChunk(first) {
      if (!first && settings.pauseMs > 0) await sleep(settings.pauseMs);
      let waited = 0;
      let lastLog = -Infinity;
      for (;;) {
        const busy = await overload();
        if (busy === undefined) {
          if (waited > 0) logger.info("cleanup resumes after waiting", { ...context, waitedMs: waited });
          return waited;
        }
        const { reason } = busy;
        if (waited >= settings.maxWaitMs) {
          throw new TransientError(
            `cleanup waited ${Math.round(waited / 1000)} s and ${reason}; the task will be retried and resume`,
          );
        }
        if (waited - lastLog >= LOG_EVERY_MS) {
          logger.warn("cleanup waiting for load to fall", { ...context, reason, waitedMs: waited });
          lastLog = waited;
        }
        await options.onWait?.();
        const step = Math.min(busy.pollMs, settings.maxWaitMs - waited);
        await sleep(step);
        waited += step;
      }
    },
  };
}
