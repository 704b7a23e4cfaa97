import { CronExpressionParser } from "cron-parser";
import { z } from "zod";
import { InvalidInputError } from "../../errors";
import { isIdentifier } from "../../model/identifier";
import { isTimeZone } from "../../model/time-zone";
import { isLocalDateTime } from "../messages/local-date-time";
import { parseWith } from "../validation/parse-with";
import { parseCleanupWindow } from "./cleanup-window";

/** A five-field cron expression, as Cloud Scheduler and BullMQ take it (minute hour day month weekday). */
function isCron(expression: string): boolean {
  if (expression.trim().split(/\s+/).length !== 5) return false;
  try {
    CronExpressionParser.parse(expression, { tz: "UTC" });
    return true;
  } catch {
    return false;
  }
}

const required = (what: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : `must be ${what}`),
});
const identifier = z.string(required("a string")).refine(isIdentifier, "must be a table or column name");
const count = z.int(required("an integer")).min(0, "must be 0 or more");
const cron = z
  .string(required("a cron expression"))
  .refine(isCron, 'must be a cron expression of five fields, as Cloud Scheduler takes it ("0 2 * * *")');

/** One table's retention, as the stack config (`table-archiver:retention`) and ARCHIVER_POLICIES declare it. */
const policySchema = z
  .strictObject({
    source_table: identifier,
    destination_table: z.string(required("a string")).min(1, "must not be empty").max(1024, "is too long"),
    filter_column: identifier,
    years_to_migrate: count.max(1000, "must be at most 1000"),
    months_to_migrate: count.max(12_000, "must be at most 12000"),
    tasks_enqueued_limit: z
      .int()
      .min(1, "must be 1 or more")
      .max(10_000, "must be at most 10000")
      .default(20),
    min_date_limit_iso: z
      .string()
      .refine(isLocalDateTime, "must be a real local date-time YYYY-MM-DDTHH:MM:SS")
      .optional(),
    migrate_schedule: cron,
    cleanup_schedule: cron.optional(),
    time_zone: z
      .string(required("an IANA time zone"))
      .refine(isTimeZone, "must be an IANA time zone (Europe/Paris)"),
    cleanup_window: z
      .string()
      .refine(
        (text) => parseCleanupWindow(text) !== undefined,
        'must be "HH:MM-HH:MM" (22:00-05:00 crosses midnight)',
      )
      .optional(),
    cleanup: z
      .enum(["off", "dry_run", "delete"], { error: 'must be "off", "dry_run" or "delete"' })
      .default("dry_run"),
    max_rows_per_second: z.int().min(1, "must be 1 or more").optional(),
    min_retention_days: z.int().min(0, "must be 0 or more").optional(),
  })
  .superRefine((policy, ctx) => {
    if (policy.cleanup !== "off" && policy.cleanup_schedule === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["cleanup_schedule"],
        message: 'is required unless cleanup is "off"',
      });
    }
  });

/** One table's retention: when it is migrated and cleaned, within which window and at what rate. */
export type RetentionPolicy = z.infer<typeof policySchema>;

/**
 * Policies as declared: a list, or an object whose `retention` holds one
 * (the local file's two shapes). A broken policy throws InvalidInputError
 * naming its table and the field (`retention "orders": cleanup_window: ...`);
 * a table declared twice is refused.
 */
export function parsePolicies(declared: unknown, where = "retention"): RetentionPolicy[] {
  const list =
    declared !== null && typeof declared === "object" && !Array.isArray(declared) && "retention" in declared
      ? (declared as { retention: unknown }).retention
      : declared;
  if (!Array.isArray(list)) throw new InvalidInputError(where, "must be a list of policies, one per table");
  const seen = new Set<string>();
  return list.map((entry, index) => {
    const table = tableOf(entry) ?? `#${index + 1}`;
    let policy: RetentionPolicy;
    try {
      policy = parseWith(policySchema, entry, "policy");
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      throw new InvalidInputError(`${where} "${table}"`, error.message, { cause: error });
    }
    if (seen.has(policy.source_table)) {
      throw new InvalidInputError(`${where} "${table}"`, "source_table: has a second policy; one per table");
    }
    seen.add(policy.source_table);
    return policy;
  });
}

function tableOf(entry: unknown): string | undefined {
  const table = (entry as { source_table?: unknown } | null)?.source_table;
  return typeof table === "string" && table.length <= 64 ? table : undefined;
}
