import { InvalidInputError } from "../errors";
import { isIdentifier } from "../model/identifier";
import { requireDatetimeColumn, type TableSchema } from "../model/table-schema";
import type { SourceDatabase } from "../ports/source-database";

/** Which message field names the table and which the filter column, for InvalidInputError. */
export interface SourceTableFields {
  readonly table: string;
  readonly column: string;
}

/** The fields of a copy or cleanup task (TaskPayload). */
export const TASK_FIELDS: SourceTableFields = { table: "table", column: "filterColumn" };

/**
 * The schema of a table that is archived by day: it exists, and `column` is
 * one of its DATETIME columns. InvalidInputError on the field that names
 * what is wrong otherwise.
 */
export async function describeSourceTable(
  source: SourceDatabase,
  table: string,
  column: string,
  fields: SourceTableFields,
): Promise<TableSchema> {
  if (!isIdentifier(table)) {
    throw new InvalidInputError(
      fields.table,
      `"${table}" is not a valid table name (letters, digits, _ and $, at most 64)`,
    );
  }
  const schema = await source.describeTable(table);
  if (!schema)
    throw new InvalidInputError(fields.table, `table "${table}" does not exist in the source database`);
  requireDatetimeColumn(schema, column, fields.column);
  return schema;
}
