import { z } from "zod";
import { isLocalDateTime } from "./local-date-time";
import { runFields } from "./run-fields";

const integer = () =>
  z.int({ error: (issue) => (issue.input === undefined ? "is required" : "must be an integer") });
const nonNegativeInt = integer().min(0, "must be 0 or more");
const name = z
  .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
  .min(1, "must not be empty")
  .max(1024, "is too long");
const names = z
  .array(name, {
    error: (issue) => (issue.input === undefined ? "is required" : "must be an array of strings"),
  })
  .min(1, "must not be empty")
  .max(1000, "has more than 1000 entries");

/** The migration message, as validated. */
export const migrationMessageSchema = z
  .strictObject({
    years_to_migrate: nonNegativeInt.max(1000, "must be at most 1000"),
    months_to_migrate: nonNegativeInt.max(12_000, "must be at most 12000"),
    source_tables: names,
    destination_tables: names,
    filter_columns: names,
    tasks_enqueued_limit: z
      .int()
      .min(1, "must be 1 or more")
      .max(10_000, "must be at most 10000")
      .default(20),
    min_date_limit_iso: z
      .string({ error: "must be a string YYYY-MM-DDTHH:MM:SS" })
      .refine(isLocalDateTime, "must be a real local date-time YYYY-MM-DDTHH:MM:SS")
      .optional(),
    ...runFields,
  })
  .superRefine((message, ctx) => {
    const count = message.source_tables.length;
    const seen = new Set<string>();
    message.source_tables.forEach((table, index) => {
      if (seen.has(table)) {
        ctx.addIssue({ code: "custom", path: ["source_tables", index], message: `"${table}" appears twice` });
      }
      seen.add(table);
    });
    for (const field of ["destination_tables", "filter_columns"] as const) {
      if (message[field].length !== count) {
        ctx.addIssue({
          code: "custom",
          path: [field],
          message: `has ${message[field].length} entries but source_tables has ${count}; the lists are parallel`,
        });
      }
    }
  });

export type MigrationMessage = z.infer<typeof migrationMessageSchema>;
