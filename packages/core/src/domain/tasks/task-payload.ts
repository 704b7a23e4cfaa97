import { z } from "zod";
import { isCalendarDay } from "../../model/calendar-day";
import { isIdentifier } from "../../model/identifier";
import type { TaskPayload } from "../../model/task";
import { parseWith } from "../validation/parse-with";

const identifier = z.string().refine(isIdentifier, "not a valid identifier");
const day = z.string().refine(isCalendarDay, "not a real YYYY-MM-DD day");

const copyDayTask = z.strictObject({
  kind: z.literal("copy"),
  table: identifier,
  destination: z.string().min(1).max(1024),
  filterColumn: identifier,
  day,
  run: z.string().min(1).max(200).optional(),
  maxRowsPerSecond: z.int().min(1).optional(),
});

const cleanDayTask = z.strictObject({
  kind: z.literal("clean"),
  table: identifier,
  filterColumn: identifier,
  day,
  recopyChangedDays: z.boolean().optional(),
  allowDeleteTriggers: z.boolean().optional(),
  partition: identifier.optional(),
  run: z.string().min(1).max(200).optional(),
  maxRowsPerSecond: z.int().min(1).optional(),
  windowEnd: z.iso.datetime().optional(),
  minRetentionDays: z.int().min(0).optional(),
});

const taskPayload: z.ZodType<TaskPayload> = z.discriminatedUnion("kind", [copyDayTask, cleanDayTask]);

/** Validates a task body (see TaskPayload); a body that can never succeed throws InvalidInputError naming the field. */
export function parseTaskPayload(body: unknown): TaskPayload {
  return parseWith(taskPayload, body, "task");
}
