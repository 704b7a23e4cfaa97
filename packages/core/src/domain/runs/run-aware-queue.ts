import { type TaskPayload, taskKey } from "../../model/task";
import type { RunHistory } from "../../ports/run-history";
import type { TaskQueue } from "../../ports/task-queue";

/**
 * The keys of `tasks` the queue does not hold yet, so that enqueueing them
 * adds them: a task it holds already (queued by an earlier run) keeps that
 * run's id, and would never end this one. Read just before the enqueue: a
 * task queued in between is the one race left (see RunHistory).
 */
export async function keysToBeAdded(queue: TaskQueue, tasks: readonly TaskPayload[]): Promise<string[]> {
  const held = new Map<string, Promise<ReadonlySet<string>>>();
  const keys: string[] = [];
  for (const task of tasks) {
    const of = `${task.kind}:${task.table}`;
    if (!held.has(of)) held.set(of, queue.queuedDays(task.kind, task.table));
    if (!(await held.get(of))?.has(task.day)) keys.push(taskKey(task));
  }
  return keys;
}

/**
 * The queue with every task that carries a run added to that run before it
 * is queued (RunHistory.queuedMore), so the run waits for it: startCleanup's
 * and startMigration's tasks, and the day tasks a partition's task sends
 * down the chunked path (which carry the partition task's run). Told before
 * the enqueue, no task can end before its run knows of it; a task the queue
 * holds already is not added (keysToBeAdded).
 */
export function runAwareQueue(queue: TaskQueue, history: RunHistory): TaskQueue {
  return withEnqueue(queue, {
    async enqueue(tasks: readonly TaskPayload[]) {
      const byRun = new Map<string, TaskPayload[]>();
      for (const task of tasks) {
        if (task.run !== undefined) byRun.set(task.run, [...(byRun.get(task.run) ?? []), task]);
      }
      // A running task's run cannot finish here: that task itself has not ended.
      for (const [run, ofRun] of byRun) await history.queuedMore(run, await keysToBeAdded(queue, ofRun));
      return queue.enqueue(tasks);
    },
  });
}

/** `queue` with its `enqueue` replaced; every other call goes to `queue` as it is. */
export function withEnqueue(queue: TaskQueue, replaced: Pick<TaskQueue, "enqueue">): TaskQueue {
  return {
    name: queue.name,
    count: () => queue.count(),
    queuedDays: (kind, table) => queue.queuedDays(kind, table),
    settle: (task) => queue.settle(task),
    close: () => queue.close(),
    enqueue: (tasks) => replaced.enqueue(tasks),
  };
}
