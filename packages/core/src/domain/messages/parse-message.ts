import { InvalidInputError } from "../../errors";
import { parseWith } from "../validation/parse-with";
import { type CleanupMessage, cleanupMessageSchema } from "./cleanup-message";
import { type MigrationMessage, migrationMessageSchema } from "./migration-message";

export type ParsedMessage =
  | { readonly mode: "migration"; readonly message: MigrationMessage }
  | { readonly mode: "cleanup"; readonly message: CleanupMessage };

const MIGRATION_FIELDS = [
  "years_to_migrate",
  "months_to_migrate",
  "source_tables",
  "destination_tables",
  "filter_columns",
];
const CLEANUP_FIELDS = ["clean_table", "filter_column"];

/**
 * Tells the two message shapes apart by their fields and validates strictly.
 * Throws InvalidInputError naming the first bad field; a message with fields
 * of both shapes, or of neither, is rejected too.
 */
export function parseMessage(input: unknown): ParsedMessage {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new InvalidInputError("message", "must be a JSON object");
  }
  const has = (fields: string[]) => fields.some((field) => field in input);
  const migration = has(MIGRATION_FIELDS);
  const cleanup = has(CLEANUP_FIELDS);
  if (migration && cleanup) {
    throw new InvalidInputError(
      "message",
      "has fields of both the migration and the cleanup shape; send one or the other",
    );
  }
  if (migration) return { mode: "migration", message: parseWith(migrationMessageSchema, input, "message") };
  if (cleanup) return { mode: "cleanup", message: parseWith(cleanupMessageSchema, input, "message") };
  throw new InvalidInputError(
    "message",
    `is neither a migration message (${MIGRATION_FIELDS.join(", ")}) nor a cleanup message (${CLEANUP_FIELDS.join(", ")})`,
  );
}
