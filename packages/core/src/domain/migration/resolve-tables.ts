import { InvalidInputError } from "../../errors";
import type { SourceDatabase } from "../../ports/source-database";
import type { MigrationMessage } from "../messages/migration-message";
import { parseDestination } from "../types/destination";
import { isIdentifier } from "../types/identifier";
import type { TableSchema } from "../types/table-schema";

/** One validated entry of the message's parallel lists. */
export interface ResolvedTable {
  readonly schema: TableSchema;
  readonly filterColumn: string;
  /** The destination as written in the message (validated), carried in task payloads. */
  readonly destinationName: string;
}

export interface DestinationRules {
  readonly defaultDataset: string;
  readonly allowProject: boolean;
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
    const schema = await describeExisting(source, table, `source_tables[${index}]`);
    requireDatetimeColumn(schema, column, `filter_columns[${index}]`);
    // Parsed only to refuse a bad name before anything is queued; tasks carry it as written.
    parseDestination(destinationName, {
      field: `destination_tables[${index}]`,
      defaultDataset: rules.defaultDataset,
      allowProject: rules.allowProject,
    });
    resolved.push({ schema, filterColumn: column, destinationName });
  }
  return resolved;
}

/** The table's schema; InvalidInputError on `field` when the name is bad or the table is missing. */
export async function describeExisting(
  source: SourceDatabase,
  table: string,
  field: string,
): Promise<TableSchema> {
  if (!isIdentifier(table)) {
    throw new InvalidInputError(
      field,
      `"${table}" is not a valid table name (letters, digits, _ and $, at most 64)`,
    );
  }
  const schema = await source.describeTable(table);
  if (!schema) throw new InvalidInputError(field, `table "${table}" does not exist in the source database`);
  return schema;
}

/** InvalidInputError on `field` unless `column` exists in `schema` and is DATETIME. */
export function requireDatetimeColumn(schema: TableSchema, column: string, field: string): void {
  if (!isIdentifier(column)) throw new InvalidInputError(field, `"${column}" is not a valid column name`);
  const found = schema.columns.find((c) => c.name === column);
  if (!found)
    throw new InvalidInputError(field, `column "${column}" does not exist in table "${schema.name}"`);
  // DATETIME only: the calendar day of a TIMESTAMP depends on the session's time zone.
  if (found.logicalType.kind !== "datetime" || found.logicalType.zone !== "local") {
    throw new InvalidInputError(
      field,
      `column "${column}" of table "${schema.name}" is ${found.columnType.toUpperCase()}, not DATETIME`,
    );
  }
}
