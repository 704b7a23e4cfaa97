import { TransientError } from "../../errors";
import type { CalendarDay } from "../../model/calendar-day";
import type { CleanupPlan } from "../../model/day-chunks";
import type { DayCleanup } from "../../model/day-cleanup";
import type { TableDay } from "../../model/table-day";
import type { CleanupState } from "../../ports/cleanup-state";

/** An in-memory CleanupState that a test can also empty, as Redis losing its data would. */
export interface MemoryCleanupState extends CleanupState {
  /** Forgets every day's state, the cleaned days and the leases. */
  clear(): void;
}

/** The plan of a day found already clean, which never needed one (as the Redis adapter reads it). */
const NO_PLAN: CleanupPlan = { kind: "chunks", by: { kind: "time" }, chunks: [], newestFirst: false };

/**
 * Cleanup state in memory. Each transition is one synchronous step, so, as
 * the port guarantees, `markVerified` never replaces a deleting or done day
 * (TransientError), `markDone` marks the day and lists it cleaned at once, and
 * a lease has one holder until released or run out. States are kept as JSON,
 * as Redis keeps them, so no caller shares an object with the store. Leases
 * run out by `now` (milliseconds; `Date.now` unless given), so a test can move
 * time on instead of waiting. It passes the CleanupState contract.
 */
export function createMemoryCleanupState(options: { readonly now?: () => number } = {}): MemoryCleanupState {
  const now = options.now ?? Date.now;
  const days = new Map<string, string>();
  const cleaned = new Map<string, Set<CalendarDay>>();
  const leases = new Map<string, { readonly holder: string; readonly until: number }>();
  const keyOf = (at: TableDay) => JSON.stringify([at.table, at.day]);
  const read = (at: TableDay): DayCleanup | undefined => {
    const json = days.get(keyOf(at));
    return json === undefined ? undefined : (JSON.parse(json) as DayCleanup);
  };
  const write = (at: TableDay, cleanup: DayCleanup) => days.set(keyOf(at), JSON.stringify(cleanup));
  const holderOf = (at: TableDay) => {
    const lease = leases.get(keyOf(at));
    return lease && lease.until > now() ? lease.holder : undefined;
  };

  return {
    async read(at) {
      return read(at);
    },
    async markVerified(at, verified) {
      const status = read(at)?.status;
      if (status === "deleting" || status === "done") {
        throw new TransientError(`${at.table} ${at.day} is already ${status}; its plan is kept`);
      }
      const { figures, plan, verifiedAt } = verified;
      write(at, { status: "verified", figures, plan, verifiedAt, chunksDone: 0, rowsDeleted: 0 });
    },
    async markDeleting(at) {
      const existing = read(at);
      if (existing?.status !== "verified") {
        throw new TransientError(
          `${at.table} ${at.day} cannot start deleting from status ${existing?.status ?? "missing"}`,
        );
      }
      write(at, { ...existing, status: "deleting" });
    },
    async recordProgress(at, progress) {
      const existing = read(at);
      if (existing) write(at, { ...existing, ...progress });
    },
    async markDone(at, done) {
      const { figures, ...counts } = done;
      const existing = read(at);
      const base = existing ?? { figures: figures ?? { rows: 0 }, plan: NO_PLAN, verifiedAt: "" };
      write(at, { ...base, ...(figures ? { figures } : {}), ...counts, status: "done" });
      const set = cleaned.get(at.table) ?? new Set<CalendarDay>();
      set.add(at.day);
      cleaned.set(at.table, set);
    },
    async cleanedDays(table) {
      return [...(cleaned.get(table) ?? [])].sort();
    },
    async claim(at, holder, ttlMs) {
      if (holderOf(at) !== undefined) return false;
      leases.set(keyOf(at), { holder, until: now() + ttlMs });
      return true;
    },
    async renew(at, holder, ttlMs) {
      if (holderOf(at) !== holder) return false;
      leases.set(keyOf(at), { holder, until: now() + ttlMs });
      return true;
    },
    async release(at, holder) {
      if (holderOf(at) === holder) leases.delete(keyOf(at));
    },
    // Nothing beyond its own map, as Redis: see withDurableCleanup.
    resumeLost: async () => undefined,
    clear() {
      days.clear();
      cleaned.clear();
      leases.clear();
    },
  };
}
