import { TransientError } from "../../errors";
import type { DayScope } from "../../model/table-day";
import type { CleanupState } from "../../ports/cleanup-state";

/**
 * How long a task holds a day before another may take it over (a live task
 * renews it: see keepDayLease). After a crash the day's next attempt must
 * wait this out: at 15 s it is free about when the local worker hands the
 * interrupted task out again (its job lock is 10 s, checked every 5 s, see
 * ../../adapters/local-queue/local-worker.ts), where 60 s cost several retries, each an attempt.
 */
export const LEASE_TTL_MS = 15_000;

/** A claimed day's lease, kept alive for as long as the task runs. */
export interface DayLease {
  /** Renews the lease now; throws TransientError when another task holds it. Called right before every delete. */
  check(): Promise<void>;
  /** Stops renewing and gives the lease back (when still held). */
  release(): Promise<void>;
}

/** Claims the day for `holder` and keeps the lease alive; undefined when another task holds it. */
export async function claimDayLease(
  state: CleanupState,
  scope: DayScope,
  holder: string,
): Promise<DayLease | undefined> {
  if (!(await state.claim(scope, holder, LEASE_TTL_MS))) return undefined;
  return keepDayLease(state, scope, holder, LEASE_TTL_MS);
}

/**
 * Keeps a claimed lease alive in the background, renewing it every third of
 * its time, so a long verification or a long CLEANUP_PAUSE_MS never lets it
 * lapse while the task is alive: only a task that died (or lost Redis for a
 * whole lease) gives the day up. A renewal that finds another holder makes
 * the next `check` throw, so no delete follows a lost lease.
 */
export function keepDayLease(state: CleanupState, scope: DayScope, holder: string, ttlMs: number): DayLease {
  let lost = false;
  const renew = async () => {
    if (!(await state.renew(scope, holder, ttlMs))) lost = true;
  };
  const timer = setInterval(() => {
    renew().catch(() => {
      // Redis unreachable for a moment: the next renewal or check tries again.
    });
  }, ttlMs / 3);
  timer.unref();
  return {
    async check() {
      if (!lost) await renew();
      if (lost)
        throw new TransientError(`${scope.table} ${scope.day}: lost the cleanup lease; the retry resumes`);
    },
    async release() {
      clearInterval(timer);
      await state.release(scope, holder).catch(() => {
        // The lease expires on its own; a failed release must not hide the task's outcome.
      });
    },
  };
}
