import { z } from "zod";
import { isCalendarDay } from "../days/calendar-day";
import { isIdentifier } from "../types/identifier";
import { parseWith } from "../validation/parse-with";

const identifier = z.string().refine(isIdentifier, "not a valid identifier");
const day = z.string().refine(isCalendarDay, "not a real YYYY-MM-DD day");

const copyDayTask = z.strictObject({
  kind: z.literal("copy"),
  table: identifier,
  destination: z.string().min(1).max(1024),
  filterColumn: identifier,
  day,
});

const cleanDayTask = z.strictObject({
  kind: z.literal("clean"),
  table: identifier,
  filterColumn: identifier,
  day,
  /** The cleanup message's `recopy_changed_days`: copy a changed (or never fingerprinted) day again, then clean it. */
  recopyChangedDays: z.boolean().optional(),
  /** The cleanup message's `allow_delete_triggers`: the table's DELETE triggers may fire. */
  allowDeleteTriggers: z.boolean().optional(),
  /**
   * Empty this partition of the table at once (by exchange) instead of
   * deleting `day`; `day` is the partition's oldest pending day, which names
   * the task. Days the partition cannot take that way are cleaned one by one.
   */
  partition: identifier.optional(),
});

const taskPayload = z.discriminatedUnion("kind", [copyDayTask, cleanDayTask]);

/** Copy one day of `table` into `destination`; small JSON, one per queued task. */
export type CopyDayTask = z.infer<typeof copyDayTask>;
/** Delete one verified day of `table`. */
export type CleanDayTask = z.infer<typeof cleanDayTask>;
export type TaskPayload = z.infer<typeof taskPayload>;
export type TaskKind = TaskPayload["kind"];

/** Validates a task body; a body that can never succeed throws InvalidInputError naming the field. */
export function parseTaskPayload(body: unknown): TaskPayload {
  return parseWith(taskPayload, body, "task");
}

/** Stable identity of a task: one queued task per (kind, table, day). */
export function taskKey(task: Pick<TaskPayload, "kind" | "table" | "day">): string {
  return `${task.kind}:${task.table}:${task.day}`;
}
