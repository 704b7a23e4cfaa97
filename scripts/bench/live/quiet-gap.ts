import { setTimeout as sleep } from "node:timers/promises";
import type mysql from "mysql2/promise";
import { CAUGHT_UP_MS } from "./phase-figures";
import type { Samplers } from "./server-samplers";

/** Redo a phase may start with: little enough that its first writes force no flushing burst. */
export const SETTLED_CHECKPOINT_AGE = 8 * 1024 * 1024;

export interface GapLimits {
  readonly minSeconds: number;
  readonly maxSeconds: number;
  /** Purge debt at which the primary counts as back to the baseline's. */
  readonly history: number;
}

/**
 * The quiet gap after a phase: at least `minSeconds`, then until the replica
 * has caught up, the purge debt is back near the baseline's and the redo is
 * flushed (see forceFlushing), or `maxSeconds` in all. So each tool starts
 * from the same settled server and none pays for the one before. Returns the
 * gap's length, and what had not settled when it ran out.
 */
export async function quietGap(
  samplers: Samplers,
  primary: mysql.Connection,
  limits: GapLimits,
): Promise<{ seconds: number; unsettled: string | undefined }> {
  const started = performance.now();
  await sleep(limits.minSeconds * 1000);
  let unsettled: string | undefined;
  await forceFlushing(primary, async () => {
    while ((performance.now() - started) / 1000 < limits.maxSeconds) {
      const lag = samplers.lag.at(-1)?.lagMs;
      const history = samplers.status.at(-1)?.historyLength ?? Number.POSITIVE_INFINITY;
      const age = await checkpointAge(primary);
      unsettled =
        lag === undefined || lag > CAUGHT_UP_MS
          ? `replica lag ${lag === undefined ? "unknown" : `${Math.round(lag)} ms`}`
          : history > limits.history
            ? `history ${history} > ${limits.history}`
            : age > SETTLED_CHECKPOINT_AGE
              ? `checkpoint age ${mib(age)} > ${mib(SETTLED_CHECKPOINT_AGE)}`
              : undefined;
      if (unsettled === undefined) return;
      await sleep(250);
    }
  });
  return { seconds: (performance.now() - started) / 1000, unsettled };
}

/** Before the workload starts: the setup's redo flushed (at most `maxSeconds`). Returns how long it took. */
export async function flushSetupRedo(primary: mysql.Connection, maxSeconds: number): Promise<number> {
  const started = performance.now();
  await forceFlushing(primary, async () => {
    while ((performance.now() - started) / 1000 < maxSeconds) {
      if ((await checkpointAge(primary)) <= SETTLED_CHECKPOINT_AGE) return;
      await sleep(250);
    }
  });
  return (performance.now() - started) / 1000;
}

/**
 * MariaDB's defaults flush dirty pages lazily: under the workload alone the
 * checkpoint age climbs for minutes, and falls only when writes force it.
 * Left alone, each phase would start with whatever redo the one before left.
 * While `wait` runs, innodb_max_dirty_pages_pct=0 makes the page cleaner
 * write every dirty page; the server's own value is put back before the next
 * phase, which so runs at the defaults.
 */
async function forceFlushing(primary: mysql.Connection, wait: () => Promise<void>): Promise<void> {
  const [[saved]] = (await primary.query("SELECT @@GLOBAL.innodb_max_dirty_pages_pct AS pct")) as unknown as [
    [{ pct: number | string }],
  ];
  await primary.query("SET GLOBAL innodb_max_dirty_pages_pct = 0");
  try {
    await wait();
  } finally {
    await primary.query("SET GLOBAL innodb_max_dirty_pages_pct = ?", [Number(saved.pct)]);
  }
}

async function checkpointAge(primary: mysql.Connection): Promise<number> {
  const [[row]] = (await primary.query("SHOW GLOBAL STATUS LIKE 'Innodb_checkpoint_age'")) as unknown as [
    [{ Value: string }],
  ];
  return Number(row.Value);
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
