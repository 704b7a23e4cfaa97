import { type TaskPayload, taskKey } from "../../model/task";
import type { RunHistory } from "../../ports/run-history";
import type { TaskQueue } from "../../ports/task-queue";

/**
 * The queue with every task that carries a run added to that run before it
 * is queued (RunHistory.queuedMore), so the run waits for it: startCleanup's
 * and startMigration's tasks, and the day tasks a partition's task sends
 * down the chunked path (which carry the partition task's run). Told before
 * the enqueue, no task can end before its run knows of it.
 */
export function runAwareQueue(queue: TaskQueue, history: RunHistory): TaskQueue {
  return {
    name: queue.name,
    count: () => queue.count(),
    queuedDays: (kind, table) => queue.queuedDays(kind, table),
    settle: (task) => queue.settle(task),
    close: () => queue.close(),
    async enqueue(tasks: readonly TaskPayload[]) {
      const byRun = new Map<string, string[]>();
      for (const task of tasks) {
        if (task.run !== undefined) byRun.set(task.run, [...(byRun.get(task.run) ?? []), taskKey(task)]);
      }
      // A running task's run cannot finish here: that task itself has not ended.
      for (const [run, keys] of byRun) await history.queuedMore(run, keys);
      return queue.enqueue(tasks);
    },
  };
}
