import { z } from "zod";

/** The cleanup message of spec 2.2, as validated. `dry_run` must be a JSON boolean. */
export const cleanupMessageSchema = z.strictObject({
  clean_table: z
    .string({ error: (i) => (i.input === undefined ? "is required" : "must be a string") })
    .min(1, "must not be empty")
    .max(64, "is too long"),
  filter_column: z
    .string({ error: (i) => (i.input === undefined ? "is required" : "must be a string") })
    .min(1, "must not be empty")
    .max(64, "is too long"),
  dry_run: z
    .boolean({ error: 'must be a JSON boolean (true or false, not a string such as "false")' })
    .default(true),
});

export type CleanupMessage = z.infer<typeof cleanupMessageSchema>;
