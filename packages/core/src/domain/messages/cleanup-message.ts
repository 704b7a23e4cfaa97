import { z } from "zod";
import { isTimeZone } from "../../model/time-zone";
import { parseCleanupWindow } from "../retention/cleanup-window";
import { isLocalDateTime } from "./local-date-time";
import { runFields } from "./run-fields";

/** What a flag was given instead of a boolean, in the words of the JSON it came in. */
function notBoolean(input: unknown): string {
  if (typeof input === "string") return `, not the string ${JSON.stringify(input)}`;
  if (typeof input === "number") return ", not a number";
  if (input === null) return ", not null";
  if (Array.isArray(input)) return ", not an array";
  return typeof input === "object" ? ", not an object" : "";
}

const jsonBoolean = z.boolean({
  error: (issue) => `must be a JSON boolean (true or false)${notBoolean(issue.input)}`,
});

/** The cleanup message, as validated. Flags must be JSON booleans. */
export const cleanupMessageSchema = z.strictObject({
  clean_table: z
    .string({ error: (i) => (i.input === undefined ? "is required" : "must be a string") })
    .min(1, "must not be empty")
    .max(64, "is too long"),
  filter_column: z
    .string({ error: (i) => (i.input === undefined ? "is required" : "must be a string") })
    .min(1, "must not be empty")
    .max(64, "is too long"),
  dry_run: jsonBoolean.default(true),
  /** Copy each day whose rows changed since their copy (or that was copied without a fingerprint) again, then clean it. */
  recopy_changed_days: jsonBoolean.default(false),
  /** Let the table's DELETE triggers fire for every deleted row; without it such a table is refused. */
  allow_delete_triggers: jsonBoolean.default(false),
  /**
   * Empty a range partition whose every row is migrated and verified at once (exchanged with a twin table);
   * `false` sends every day down the chunked path.
   */
  exchange_partitions: jsonBoolean.default(true),
  ...runFields,
  /** The zone `cleanup_window` and `window_end` are read in; ARCHIVER_TIMEZONE when absent. */
  time_zone: z.string().refine(isTimeZone, "must be an IANA time zone (Europe/Paris)").optional(),
  /** Deletes happen only inside this daily window (`HH:MM-HH:MM`, may cross midnight). */
  cleanup_window: z
    .string()
    .refine(
      (text) => parseCleanupWindow(text) !== undefined,
      'must be "HH:MM-HH:MM" (22:00-05:00 crosses midnight)',
    )
    .optional(),
  /** No delete starts that could not finish by this local date-time (`YYYY-MM-DDTHH:MM:SS`). */
  window_end: z
    .string({ error: "must be a string YYYY-MM-DDTHH:MM:SS" })
    .refine(isLocalDateTime, "must be a real local date-time YYYY-MM-DDTHH:MM:SS")
    .optional(),
  /** Days younger than this are never deleted; raises the deployment's MIN_RETENTION_DAYS, never lowers it. */
  min_retention_days: z
    .int({ error: "must be an integer" })
    .min(0, "must be 0 or more")
    .max(100_000)
    .optional(),
});

export type CleanupMessage = z.infer<typeof cleanupMessageSchema>;
