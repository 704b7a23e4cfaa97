import type { CleanPartitionTask } from "../../../model/task";
import { taskAccessRefusal } from "../../access/task-access";
import type { CleanupDeps } from "../cleanup-deps";
import { type DayCleanupReport, NOTHING_RUN } from "../day/clean-day";
import { refusalError } from "../refusal";
import { cleanPartition, type PartitionCleanup, untouched } from "./clean-partition";

/** What a partition's cleanup task did: the partition's fate, and its own day's report when it cleaned one. */
export interface PartitionTaskReport extends DayCleanupReport {
  readonly partition: PartitionCleanup;
}

/** What any cleanup task did: a day's report, with its partition's when the task emptied one. */
export type CleanupTaskReport = DayCleanupReport & { readonly partition?: PartitionCleanup };

/**
 * A partition's cleanup task (see cleanPartition): the partition emptied at
 * once, or its days cleaned one by one, this task's own day here.
 */
export async function cleanPartitionTask(
  deps: CleanupDeps,
  task: CleanPartitionTask,
): Promise<PartitionTaskReport> {
  const started = performance.now();
  if (task.windowEnd !== undefined && deps.clock().getTime() >= Date.parse(task.windowEnd)) {
    // Its window has closed: nothing is exchanged now; the next window's run queues the partition again.
    return { ...report(task, untouched(task.partition), started), outcome: "deferred" };
  }
  // Like a day's task, it proves its own account first: its chunked path deletes, and its checks read as it.
  const short = await taskAccessRefusal(deps, task.table);
  if (short) throw refusalError(short);
  const { own, ...partition } = await cleanPartition(deps, task);
  if (own) return { ...own, partition, durationMs: Math.round(performance.now() - started) };
  return report(task, partition, started);
}

function report(task: CleanPartitionTask, partition: PartitionCleanup, started: number): PartitionTaskReport {
  return {
    table: task.table,
    day: task.day,
    outcome: partition.outcome === "cleaned" ? "cleaned" : "already-done",
    rowsDeleted: partition.rowsDeleted,
    ...NOTHING_RUN,
    durationMs: Math.round(performance.now() - started),
    resumed: false,
    partition,
  };
}
