import type { Redis } from "ioredis";
import type { CalendarDay } from "../../domain/days/calendar-day";
import type { TaskKind, TaskPayload } from "../../domain/tasks/task-payload";
import { withRedisErrors } from "../redis/map-redis-error";

/**
 * Which days have a Cloud Task, per (kind, table): Cloud Tasks counts tasks
 * per queue only. One Redis sorted set per (kind, table), members are days,
 * scores the enqueue time in ms. Entries older than the staleness horizon
 * the caller passes are pruned on read, so a task that died for good (or was
 * deleted by hand) stops blocking its day once Cloud Tasks could no longer
 * be running it.
 */
export interface QueuedDaysBook {
  add(tasks: readonly TaskPayload[], at: number): Promise<void>;
  remove(tasks: readonly TaskPayload[]): Promise<void>;
  /** Days enqueued at or after `since` (ms; -Infinity keeps all); older entries are dropped. */
  days(kind: TaskKind, table: string, since: number): Promise<Set<CalendarDay>>;
}

export function createQueuedDaysBook(redis: Redis, prefix: string): QueuedDaysBook {
  const key = (kind: TaskKind, table: string) => `${prefix}:queued:${kind}:${table}`;
  return {
    async add(tasks, at) {
      if (tasks.length === 0) return;
      const pipeline = redis.pipeline();
      for (const task of tasks) pipeline.zadd(key(task.kind, task.table), at, task.day);
      await withRedisErrors(() => execOrThrow(pipeline.exec()));
    },
    async remove(tasks) {
      if (tasks.length === 0) return;
      const pipeline = redis.pipeline();
      for (const task of tasks) pipeline.zrem(key(task.kind, task.table), task.day);
      await withRedisErrors(() => execOrThrow(pipeline.exec()));
    },
    async days(kind, table, since) {
      const at = key(kind, table);
      if (!Number.isFinite(since)) {
        return new Set(await withRedisErrors(() => redis.zrange(at, "0", "-1")));
      }
      const replies = await withRedisErrors(() =>
        execOrThrow(redis.multi().zremrangebyscore(at, "-inf", `(${since}`).zrange(at, "0", "-1").exec()),
      );
      return new Set(replies[1] as string[]);
    },
  };
}

/** Unwraps a pipeline's replies, throwing the first command error. */
async function execOrThrow(result: Promise<[Error | null, unknown][] | null>): Promise<unknown[]> {
  const replies = (await result) ?? [];
  for (const [error] of replies) if (error) throw error;
  return replies.map(([, value]) => value);
}
