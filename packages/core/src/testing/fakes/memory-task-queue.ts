import { parseTaskPayload } from "../../domain/tasks/task-payload";
import type { CalendarDay } from "../../model/calendar-day";
import { type TaskKind, type TaskPayload, taskKey } from "../../model/task";
import { QUEUE_NAME, type TaskQueue } from "../../ports/task-queue";

/** An in-memory TaskQueue whose tasks a test runs itself. */
export interface MemoryTaskQueue extends TaskQueue {
  /** Tasks waiting or running, in the order they were queued. */
  tasks(): TaskPayload[];
  /** Hands out the oldest waiting task (it stays counted, as running, until `finish`); undefined when none waits. */
  take(): TaskPayload | undefined;
  /** Ends a task taken with `take`, done or failed for good: it is no longer queued. */
  finish(task: TaskPayload): void;
  /**
   * Runs every task, the ones its handler queues included, oldest first, one
   * at a time, until none is left; a task whose handler throws is finished
   * and the error thrown (no retry: a test retries by enqueueing again).
   */
  runAll(handler: (task: TaskPayload) => Promise<unknown>): Promise<TaskPayload[]>;
}

/**
 * The task queue in memory, for fast tests. Like the real queues it validates
 * every payload before queueing any (InvalidInputError), and holds at most one
 * task per (kind, table, day) until that task is finished. It leaves out
 * delivery: nothing runs until the test takes tasks (`take`, `runAll`), and
 * there are no attempts or backoff. It passes the TaskQueue contract.
 */
export function createMemoryTaskQueue(): MemoryTaskQueue {
  // Insertion order is queue order; `running` marks tasks handed out.
  const live = new Map<string, TaskPayload>();
  const running = new Set<string>();

  const queue: MemoryTaskQueue = {
    name: QUEUE_NAME,
    async enqueue(tasks) {
      const parsed = tasks.map((task) => parseTaskPayload(task));
      let added = 0;
      for (const task of parsed) {
        const key = taskKey(task);
        if (live.has(key)) continue;
        live.set(key, task);
        added += 1;
      }
      return { added, alreadyQueued: tasks.length - added };
    },
    async count() {
      return live.size;
    },
    async queuedDays(kind: TaskKind, table: string) {
      const days = new Set<CalendarDay>();
      for (const task of live.values()) if (task.kind === kind && task.table === table) days.add(task.day);
      return days;
    },
    async settle() {
      // Bookkeeping only: `finish` is what ends a task here.
    },
    async close() {},
    tasks: () => [...live.values()],
    take() {
      for (const [key, task] of live) {
        if (running.has(key)) continue;
        running.add(key);
        return task;
      }
      return undefined;
    },
    finish(task) {
      const key = taskKey(task);
      live.delete(key);
      running.delete(key);
    },
    async runAll(handler) {
      const ran: TaskPayload[] = [];
      for (let task = queue.take(); task; task = queue.take()) {
        try {
          await handler(task);
        } finally {
          queue.finish(task);
          await queue.settle(task);
        }
        ran.push(task);
      }
      return ran;
    },
  };
  return queue;
}
