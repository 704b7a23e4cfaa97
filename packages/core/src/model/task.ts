import type { CalendarDay } from "./calendar-day";

/** Copy one day of `table` into `destination`; small JSON, one per queued task. */
export interface CopyDayTask {
  readonly kind: "copy";
  readonly table: string;
  /** The destination as the migration message named it (`t`, `d.t` or `p.d.t`). */
  readonly destination: string;
  readonly filterColumn: string;
  readonly day: CalendarDay;
  /** The run that queued the task (see RunHistory), counted when the task ends. */
  readonly run?: string;
  /** Rows copied per second for the table, across every task at once. */
  readonly maxRowsPerSecond?: number;
}

/** Delete one verified day of `table`, or, with `partition`, empty that partition at once. */
export interface CleanDayTask {
  readonly kind: "clean";
  readonly table: string;
  readonly filterColumn: string;
  readonly day: CalendarDay;
  /** The cleanup message's `recopy_changed_days`: copy a changed (or never fingerprinted) day again, then clean it. */
  readonly recopyChangedDays?: boolean;
  /** The cleanup message's `allow_delete_triggers`: the table's DELETE triggers may fire. */
  readonly allowDeleteTriggers?: boolean;
  /**
   * Empty this partition of the table at once (by exchange) instead of
   * deleting `day`; `day` is the partition's oldest pending day, which names
   * the task. Days the partition cannot take that way are cleaned one by one.
   */
  readonly partition?: string;
  /** The run that queued the task (see RunHistory), counted when the task ends. */
  readonly run?: string;
  /** Rows deleted per second for the table, across every task at once. */
  readonly maxRowsPerSecond?: number;
  /** ISO instant: no delete starts that could not finish by then; past it, the task defers its day. */
  readonly windowEnd?: string;
  /** Days younger than this are refused, above the deployment's own floor. */
  readonly minRetentionDays?: number;
}

/** A cleanup task that names a partition: its own kind of work, dispatched apart from the day's. */
export type CleanPartitionTask = CleanDayTask & { readonly partition: string };

export type TaskPayload = CopyDayTask | CleanDayTask;
export type TaskKind = TaskPayload["kind"];

/** Whether a cleanup task empties a partition rather than cleaning its day. */
export function isPartitionTask(task: CleanDayTask): task is CleanPartitionTask {
  return task.partition !== undefined;
}

/** Stable identity of a task: one queued task per (kind, table, day). */
export function taskKey(task: Pick<TaskPayload, "kind" | "table" | "day">): string {
  return `${task.kind}:${task.table}:${task.day}`;
}
