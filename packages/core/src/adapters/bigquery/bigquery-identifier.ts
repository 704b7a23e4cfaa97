import { InvalidInputError } from "../../errors";
import { excerpt } from "../../errors/excerpt";

/** What a name in BigQuery SQL names: it decides the characters the name may hold. */
export type BigQueryNameKind = "project" | "dataset" | "table" | "column";

/**
 * The names the archiver writes, by kind. None admits a backtick (it would
 * end the quoted name, and BigQuery runs multi-statement scripts), a
 * backslash (BigQuery reads escapes inside quoted names), a quote,
 * whitespace or a semicolon: a name is either one of these or refused, never
 * escaped. Columns are those bigQueryFields lets into a table (a MySQL name
 * without `$`); datasets and tables those parseDestination and
 * WAREHOUSE_DATASET accept, and `_archiver_days`; projects Google Cloud
 * project ids, domain-scoped ones (`example.com:project`) included.
 */
const NAMES: Readonly<Record<BigQueryNameKind, { readonly pattern: RegExp; readonly shape: string }>> = {
  project: {
    pattern: /^(?:[a-z0-9][a-z0-9.-]{0,61}:)?[a-z][a-z0-9-]{0,61}[a-z0-9]$/,
    shape: "a Google Cloud project id: lower-case letters, digits and -",
  },
  dataset: { pattern: /^[A-Za-z0-9_]{1,1024}$/, shape: "letters, digits and _, at most 1024" },
  table: { pattern: /^[A-Za-z0-9_]{1,1024}$/, shape: "letters, digits and _, at most 1024" },
  column: { pattern: /^[A-Za-z0-9_]{1,300}$/, shape: "letters, digits and _, at most 300" },
};

/**
 * `name`, when it is a `kind` the archiver may put into BigQuery SQL text;
 * every project, dataset, table and column of a statement passes here
 * (bigquery-queries.ts), so no statement is built, and no job created, with
 * any other. InvalidInputError on `kind` otherwise, quoting at most 64
 * characters of the name: a name that cannot be written never will be.
 */
export function bigQueryIdentifier(name: string, kind: BigQueryNameKind): string {
  const { pattern, shape } = NAMES[kind];
  if (pattern.test(name)) return name;
  throw new InvalidInputError(
    kind,
    `${JSON.stringify(excerpt(name))} cannot be named in BigQuery SQL: a ${kind} name must be ${shape}`,
  );
}

/** A column, checked by bigQueryIdentifier, between backticks. */
export function quotedColumn(name: string): string {
  return `\`${bigQueryIdentifier(name, "column")}\``;
}
