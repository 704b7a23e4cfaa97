import type { Redis } from "ioredis";
import type { CalendarDay } from "../../domain/days/calendar-day";
import type { TaskKind, TaskPayload } from "../../domain/tasks/task-payload";
import { localJobIdPrefix, localQueueKeys } from "./local-queue-keys";

/** Where a job stands: no job, a job still to run (or running), or a job finished for good. */
export type JobPresence = "absent" | "live" | "finished";

// A job is live when its hash exists and it is in neither finished set: that
// covers waiting, delayed (including a retry's backoff), active, prioritized
// and waiting-children without walking BullMQ's lists.
const LIVE_CHECK = `
local function presence(id)
  if redis.call("EXISTS", ARGV[1] .. id) == 0 then return 0 end
  if redis.call("ZSCORE", KEYS[1], id) or redis.call("ZSCORE", KEYS[2], id) then return 2 end
  return 1
end
`;

/** KEYS: failed, completed. ARGV: job key prefix, ids... Returns 0 absent, 1 live, 2 finished per id. */
const CLASSIFY_SCRIPT = `${LIVE_CHECK}
local out = {}
for i = 2, #ARGV do out[i - 1] = presence(ARGV[i]) end
return out
`;

/**
 * KEYS: failed, completed, index set. ARGV: job key prefix, job id prefix, days...
 * (no days = every member). Drops days whose job is no longer live from the
 * index, in the same atomic step as the check, and returns the live ones.
 */
const LIVE_DAYS_SCRIPT = `${LIVE_CHECK}
local days = {}
if #ARGV > 2 then
  for i = 3, #ARGV do days[#days + 1] = ARGV[i] end
else
  days = redis.call("SMEMBERS", KEYS[3])
end
local live = {}
for _, day in ipairs(days) do
  if presence(ARGV[2] .. day) == 1 then live[#live + 1] = day else redis.call("SREM", KEYS[3], day) end
end
return live
`;

/** Ids per script call: keeps each call short so Redis stays responsive. */
const CHUNK = 1_000;
const PRESENCE: readonly JobPresence[] = ["absent", "live", "finished"];

/**
 * The per-(kind, table) index behind `queuedDays`: a Redis set of days that may
 * have a live job. It is a superset, never the truth: enqueue adds days after
 * their jobs exist (and re-adds days found already queued, so a lost entry
 * heals), and every read checks each member's job and drops the finished ones
 * atomically. Reading costs O(days of that table in the index), not O(all jobs).
 */
export function createQueuedDaysIndex(redis: Redis, prefix: string) {
  const keys = localQueueKeys(prefix);

  return {
    /** Presence of each job id, in order. */
    async classify(ids: readonly string[]): Promise<JobPresence[]> {
      const out: JobPresence[] = [];
      for (let start = 0; start < ids.length; start += CHUNK) {
        const chunk = ids.slice(start, start + CHUNK);
        const codes = (await redis.eval(
          CLASSIFY_SCRIPT,
          2,
          keys.failed,
          keys.completed,
          keys.job,
          ...chunk,
        )) as number[];
        for (const code of codes) out.push(PRESENCE[code] ?? "live");
      }
      return out;
    },

    /** Records that these tasks have (or just got) a job. */
    async add(tasks: readonly TaskPayload[]): Promise<void> {
      const groups = new Map<string, CalendarDay[]>();
      for (const task of tasks) {
        const key = keys.queuedDays(task.kind, task.table);
        const days = groups.get(key);
        if (days) days.push(task.day);
        else groups.set(key, [task.day]);
      }
      const pipeline = redis.pipeline();
      for (const [key, days] of groups) {
        for (let start = 0; start < days.length; start += CHUNK)
          pipeline.sadd(key, ...days.slice(start, start + CHUNK));
      }
      const results = (await pipeline.exec()) ?? [];
      const failure = results.find(([error]) => error);
      if (failure?.[0]) throw failure[0];
    },

    /** Days of (kind, table) with a live job, restricted to `days` when given; drops the rest. */
    async liveDays(kind: TaskKind, table: string, days: readonly CalendarDay[] = []): Promise<CalendarDay[]> {
      return (await redis.eval(
        LIVE_DAYS_SCRIPT,
        3,
        keys.failed,
        keys.completed,
        keys.queuedDays(kind, table),
        keys.job,
        localJobIdPrefix(kind, table),
        ...days,
      )) as CalendarDay[];
    },
  };
}

export type QueuedDaysIndex = ReturnType<typeof createQueuedDaysIndex>;
