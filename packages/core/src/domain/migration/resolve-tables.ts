import { type DestinationRules, parseDestination } from "../../model/destination";
import type { TableSchema } from "../../model/table-schema";
import type { SourceDatabase } from "../../ports/source-database";
import type { MigrationMessage } from "../messages/migration-message";
import { describeSourceTable } from "../source-table";

/** One validated entry of the message's parallel lists. */
export interface ResolvedTable {
  readonly schema: TableSchema;
  readonly filterColumn: string;
  /** The destination as written in the message (validated), carried in task payloads. */
  readonly destinationName: string;
}

/**
 * Checks every table of the message against the database before anything is
 * queued for any of them: the table exists, the filter column exists and is
 * DATETIME, the destination name is valid.
 */
export async function resolveTables(
  source: SourceDatabase,
  message: MigrationMessage,
  rules: DestinationRules,
): Promise<ResolvedTable[]> {
  const resolved: ResolvedTable[] = [];
  for (const [index, table] of message.source_tables.entries()) {
    const column = message.filter_columns[index] ?? "";
    const destinationName = message.destination_tables[index] ?? "";
    const schema = await describeSourceTable(source, table, column, {
      table: `source_tables[${index}]`,
      column: `filter_columns[${index}]`,
    });
    // Parsed only to refuse a bad name before anything is queued; tasks carry it as written.
    parseDestination(destinationName, rules, `destination_tables[${index}]`);
    resolved.push({ schema, filterColumn: column, destinationName });
  }
  return resolved;
}
