import type { Redis } from "ioredis";
import type { CalendarDay } from "../../model/calendar-day";
import type { TaskKind, TaskPayload } from "../../model/task";
import { type BullmqJobKeys, JOB_PRESENCE_LUA } from "./bullmq-job-presence";
import { withRedisErrors } from "./map-redis-error";

/**
 * KEYS[1]: the book of one (kind, table); KEYS[2], KEYS[3]: the queue's failed
 * and completed sets, when its jobs are known. ARGV[1]: now (ms); ARGV[2],
 * ARGV[3]: job key prefix and job id prefix (empty when jobs are not known);
 * the rest is each script's own.
 *
 * A book that is a plain set of days, as the local queue kept it before
 * entries carried their enqueue time, becomes a sorted set at the first
 * script that touches it, its days scored now: a queue upgraded with work
 * queued keeps every queued day, under the same key.
 */
const BOOK_LUA = `${JOB_PRESENCE_LUA}
local function upgrade()
  if redis.call("TYPE", KEYS[1]).ok ~= "set" then return end
  local days = redis.call("SMEMBERS", KEYS[1])
  redis.call("DEL", KEYS[1])
  local args = {}
  for _, day in ipairs(days) do
    args[#args + 1] = ARGV[1]
    args[#args + 1] = day
    if #args == 1000 then redis.call("ZADD", KEYS[1], unpack(args)); args = {} end
  end
  if #args > 0 then redis.call("ZADD", KEYS[1], unpack(args)) end
end

-- Whether the day's job is live; nil when the queue's jobs are not known here.
local function job_live(day)
  if #KEYS < 3 then return nil end
  return job_presence(ARGV[2], KEYS[2], KEYS[3], ARGV[3] .. day) == 1
end
upgrade()
`;

/** ARGV[4..]: days, each scored now. */
const ADD_SCRIPT = `${BOOK_LUA}
local args = {}
for i = 4, #ARGV do
  args[#args + 1] = ARGV[1]
  args[#args + 1] = ARGV[i]
  if #args == 1000 then redis.call("ZADD", KEYS[1], unpack(args)); args = {} end
end
if #args > 0 then redis.call("ZADD", KEYS[1], unpack(args)) end
return 0
`;

/** ARGV[4]: oldest score still valid ("-inf": all). Drops stale days and days whose job ended; returns the rest. */
const DAYS_SCRIPT = `${BOOK_LUA}
if ARGV[4] ~= "-inf" then redis.call("ZREMRANGEBYSCORE", KEYS[1], "-inf", "(" .. ARGV[4]) end
local live = {}
for _, day in ipairs(redis.call("ZRANGE", KEYS[1], 0, -1)) do
  if job_live(day) == false then redis.call("ZREM", KEYS[1], day) else live[#live + 1] = day end
end
return live
`;

/** ARGV[4..]: days to drop, unless their job is known to be live. */
const SETTLE_SCRIPT = `${BOOK_LUA}
for i = 4, #ARGV do
  if not job_live(ARGV[i]) then redis.call("ZREM", KEYS[1], ARGV[i]) end
end
return 0
`;

/** Days per script call: keeps each call short so Redis stays responsive. */
const CHUNK = 1_000;

export interface QueuedDaysBookOptions {
  /** The Redis key of the book of (kind, table). */
  readonly key: (kind: TaskKind, table: string) => string;
  /** Now, in ms: the score of an entry. @default Date.now */
  readonly clock?: () => number;
  /**
   * How long after its enqueue a task may still run (ms; Infinity: for ever).
   * Older entries are stale and dropped on read. Cloud Tasks: the queue's
   * retry horizon. Omitted: entries never go stale by age.
   */
  readonly horizonMs?: () => Promise<number>;
  /**
   * The queue's jobs, when they live in this Redis (BullMQ): an entry then
   * counts only while its job is live, reads drop the others, and settling a
   * day whose job is live (queued again meanwhile) keeps it.
   */
  readonly jobs?: {
    readonly keys: BullmqJobKeys;
    /** Job id of a (kind, table) task without its day: the day follows. */
    idPrefix(kind: TaskKind, table: string): string;
  };
}

/**
 * Which days have a queued task, per (kind, table), for `TaskQueue.queuedDays`:
 * queues count tasks, not days. One Redis sorted set per (kind, table),
 * members are days, scores the enqueue time in ms. It is a superset, never
 * less than the truth: entries whose task can no longer run (past the
 * horizon, or a finished job) are dropped on read, atomically with the check,
 * so a task that died without being settled stops blocking its day. Reading
 * costs O(days of that table in the book), not O(all tasks in the queue).
 */
export interface QueuedDaysBook {
  /** Records that these tasks are (about to be) queued now; a day queued again gets the new time. */
  add(tasks: readonly TaskPayload[]): Promise<void>;
  /** Drops these tasks' days: they finished for good, or were never created. A live job keeps its day. */
  settle(tasks: readonly TaskPayload[]): Promise<void>;
  /** Days of (kind, table) whose task may still run; drops the others. */
  days(kind: TaskKind, table: string): Promise<Set<CalendarDay>>;
}

export function createQueuedDaysBook(redis: Redis, options: QueuedDaysBookOptions): QueuedDaysBook {
  const clock = options.clock ?? Date.now;
  const jobs = options.jobs;

  /** KEYS and the shared ARGV of a script call on (kind, table). */
  function head(kind: TaskKind, table: string): [number, ...string[]] {
    const book = options.key(kind, table);
    const now = String(clock());
    if (!jobs) return [1, book, now, "", ""];
    return [3, book, jobs.keys.failed, jobs.keys.completed, now, jobs.keys.job, jobs.idPrefix(kind, table)];
  }

  /** Runs `script` once per (kind, table) of `tasks` and CHUNK days, in one pipeline. */
  async function perTable(script: string, tasks: readonly TaskPayload[]): Promise<void> {
    if (tasks.length === 0) return;
    const groups = new Map<string, { kind: TaskKind; table: string; days: CalendarDay[] }>();
    for (const task of tasks) {
      const key = options.key(task.kind, task.table);
      const group = groups.get(key) ?? { kind: task.kind, table: task.table, days: [] };
      group.days.push(task.day);
      groups.set(key, group);
    }
    const pipeline = redis.pipeline();
    for (const { kind, table, days } of groups.values()) {
      for (let start = 0; start < days.length; start += CHUNK) {
        pipeline.eval(script, ...head(kind, table), ...days.slice(start, start + CHUNK));
      }
    }
    const replies = (await pipeline.exec()) ?? [];
    for (const [error] of replies) if (error) throw error;
  }

  return {
    add: (tasks) => withRedisErrors(() => perTable(ADD_SCRIPT, tasks)),
    settle: (tasks) => withRedisErrors(() => perTable(SETTLE_SCRIPT, tasks)),
    async days(kind, table) {
      const horizon = options.horizonMs ? await options.horizonMs() : Number.POSITIVE_INFINITY;
      const since = Number.isFinite(horizon) ? String(clock() - horizon) : "-inf";
      const days = await withRedisErrors(
        () => redis.eval(DAYS_SCRIPT, ...head(kind, table), since) as Promise<CalendarDay[]>,
      );
      return new Set(days);
    },
  };
}
