import type { Redis } from "ioredis";
import { RefusalError, TransientError } from "../../errors";
import type { CalendarDay } from "../../model/calendar-day";
import type { DayCleanup } from "../../model/day-cleanup";
import type { TableDay } from "../../model/table-day";
import type { CleanupState } from "../../ports/cleanup-state";
import { withRedisErrors } from "./map-redis-error";

/** Key names of the cleanup bookkeeping under `prefix` (default `archiver`). */
export function cleanupKeys(prefix: string, table: string, day?: CalendarDay) {
  return {
    /** Hash with the day's status, figures, plan and progress. */
    day: `${prefix}:cleanup:${table}:${day}`,
    /** Lease held by the task cleaning the day. */
    lease: `${prefix}:cleanup-lease:${table}:${day}`,
    /** Set of the table's cleaned days (`YYYY-MM-DD`); `mig_<table>` keeps them too. */
    cleaned: `${prefix}:cleaned:${table}`,
  };
}

/** Refuses to replace a day whose deletes may have started. */
const VERIFIED_SCRIPT = `
local status = redis.call("HGET", KEYS[1], "status")
if status == "deleting" or status == "done" then return status end
redis.call("DEL", KEYS[1])
redis.call("HSET", KEYS[1], "status", "verified", "figures", ARGV[1], "plan", ARGV[2], "verifiedAt", ARGV[3],
  "chunksDone", "0", "rowsDeleted", "0")
return "ok"
`;

const DELETING_SCRIPT = `
local status = redis.call("HGET", KEYS[1], "status")
if status ~= "verified" then return status or "missing" end
redis.call("HSET", KEYS[1], "status", "deleting")
return "ok"
`;

const DONE_SCRIPT = `
redis.call("HSET", KEYS[1], "status", "done", "rowsDeleted", ARGV[2], "chunksDone", ARGV[3], "doneAt", ARGV[4])
if ARGV[5] ~= "" then redis.call("HSET", KEYS[1], "figures", ARGV[5]) end
redis.call("SADD", KEYS[2], ARGV[1])
return 1
`;

const RENEW_SCRIPT = `
if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end
return 0
`;

const RELEASE_SCRIPT = `
if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end
return 0
`;

/**
 * CleanupState on Redis. Every transition that must be atomic or conditional
 * is one script, which Redis runs with nothing in between. Failures to reach
 * Redis surface as TransientError.
 */
export function createRedisCleanupState(redis: Redis, options: { prefix?: string } = {}): CleanupState {
  const prefix = options.prefix ?? "archiver";
  const keys = (at: TableDay) => cleanupKeys(prefix, at.table, at.day);

  return {
    async read(at) {
      const hash = await withRedisErrors(() => redis.hgetall(keys(at).day));
      return Object.keys(hash).length === 0 ? undefined : parseDay(at, hash);
    },

    async markVerified(at, verified) {
      const result = await withRedisErrors(() =>
        redis.eval(
          VERIFIED_SCRIPT,
          1,
          keys(at).day,
          JSON.stringify(verified.figures),
          JSON.stringify(verified.plan),
          verified.verifiedAt,
        ),
      );
      if (result !== "ok") {
        throw new TransientError(`${at.table} ${at.day} is already ${String(result)}; its plan is kept`);
      }
    },

    async markDeleting(at) {
      const result = await withRedisErrors(() => redis.eval(DELETING_SCRIPT, 1, keys(at).day));
      if (result !== "ok") {
        throw new TransientError(`${at.table} ${at.day} cannot start deleting from status ${String(result)}`);
      }
    },

    async recordProgress(at, progress) {
      await withRedisErrors(() =>
        redis.hset(keys(at).day, {
          chunksDone: progress.chunksDone,
          rowsDeleted: progress.rowsDeleted,
        }),
      );
    },

    async markDone(at, done) {
      const k = keys(at);
      await withRedisErrors(() =>
        redis.eval(
          DONE_SCRIPT,
          2,
          k.day,
          k.cleaned,
          at.day,
          done.rowsDeleted,
          done.chunksDone,
          done.doneAt,
          done.figures ? JSON.stringify(done.figures) : "",
        ),
      );
    },

    cleanedDays: (table) =>
      withRedisErrors(async () => (await redis.smembers(cleanupKeys(prefix, table).cleaned)).sort()),

    async claim(at, holder, ttlMs) {
      const result = await withRedisErrors(() => redis.set(keys(at).lease, holder, "PX", ttlMs, "NX"));
      return result === "OK";
    },

    async renew(at, holder, ttlMs) {
      const result = await withRedisErrors(() => redis.eval(RENEW_SCRIPT, 1, keys(at).lease, holder, ttlMs));
      return Number(result) === 1;
    },

    async release(at, holder) {
      await withRedisErrors(() => redis.eval(RELEASE_SCRIPT, 1, keys(at).lease, holder));
    },

    // What Redis lost, Redis cannot give back: see withDurableCleanup.
    resumeLost: async () => undefined,
  };
}

/** The plan of a day found already clean, which never needed one. */
const NO_PLAN = { kind: "chunks", by: { kind: "time" }, chunks: [], newestFirst: false } as const;

function parseDay({ table, day }: TableDay, hash: Record<string, string>): DayCleanup {
  const status = hash.status;
  if (status !== "verified" && status !== "deleting" && status !== "done") {
    throw new RefusalError(`cleanup state of ${table} ${day} has an unknown status ${String(status)}`);
  }
  if (hash.plan === undefined && status !== "done") {
    throw new RefusalError(`cleanup state of ${table} ${day} is ${status} but has no plan`);
  }
  try {
    return {
      status,
      figures: JSON.parse(hash.figures ?? ""),
      // A day found already clean is done without ever having a plan.
      plan: hash.plan === undefined ? NO_PLAN : JSON.parse(hash.plan),
      verifiedAt: hash.verifiedAt ?? "",
      chunksDone: Number(hash.chunksDone ?? 0),
      rowsDeleted: Number(hash.rowsDeleted ?? 0),
      ...(hash.doneAt ? { doneAt: hash.doneAt } : {}),
    };
  } catch (error) {
    // Deletes resume from this state; an unreadable one must stop the day, never guess.
    throw new RefusalError(`cleanup state of ${table} ${day} is not readable`, { cause: error });
  }
}
