import type { CalendarDay } from "../model/calendar-day";
import type { TaskKind, TaskPayload } from "../model/task";

export interface EnqueueResult {
  /** Tasks newly queued. */
  readonly added: number;
  /** Tasks skipped because an equal (kind, table, day) task was already queued. */
  readonly alreadyQueued: number;
}

/** The queue's name, as the spec fixes it (1.3, 2.4): the drivers, the infra and operators look it up by it. */
export const QUEUE_NAME = "jobs-migration";

/**
 * The task queue `jobs-migration` (a local Redis-backed queue, or Cloud Tasks).
 *
 * Guarantees: at most one queued task per (kind, table, day): enqueueing a task
 * that is already queued is recognised and counted, not duplicated. A task runs
 * at least once; failed attempts are retried with backoff. `count()` falls to 0
 * when nothing is left to run.
 *
 * Leaves out: ordering between tasks, and exactly-once delivery (handlers are
 * idempotent instead).
 */
export interface TaskQueue {
  readonly name: string;
  enqueue(tasks: readonly TaskPayload[]): Promise<EnqueueResult>;
  /** Tasks waiting, delayed or running: the progress indicator. */
  count(): Promise<number>;
  /** Days of `table` that have a `kind` task waiting, delayed or running. */
  queuedDays(kind: TaskKind, table: string): Promise<ReadonlySet<CalendarDay>>;
  /** Tells the bookkeeping that a task is finished for good (done, or failed for good). */
  settle(task: TaskPayload): Promise<void>;
  close(): Promise<void>;
}
