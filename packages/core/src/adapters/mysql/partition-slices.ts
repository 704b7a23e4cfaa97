import type { SourceColumn } from "../../model/table-schema";
import { integerText } from "./key-range";
import { quoteIdentifier } from "./quote-identifier";
import type { SqlQuery } from "./sql-query";

// The conditions that cut rows into slices along a primary key of several columns (see sliceableKey).

/**
 * The rows whose key, compared column by column in key order, is after
 * `values` (`"after"`) or at most `values` (`"up to"`): disjunctions of
 * ranges on the primary key's columns, which the range optimizer reads as
 * ranges of the primary key (a row constructor comparison it may not).
 * Integers are bound as text and cast, so keys beyond 2^53 stay exact; dates
 * as the server's own text of them.
 */
export function keyTupleCondition(
  key: readonly SourceColumn[],
  values: readonly string[],
  side: "after" | "up to",
): SqlQuery {
  if (values.length !== key.length)
    throw new Error(`a key of ${key.length} columns, ${values.length} values`);
  const terms = key.map((column) => {
    const kind = column.logicalType.kind;
    const cast = kind === "uint64" ? "UNSIGNED" : kind === "int32" || kind === "int64" ? "SIGNED" : undefined;
    return { quoted: quoteIdentifier(column.name), placeholder: cast ? `CAST(? AS ${cast})` : "?", cast };
  });
  const bound = values.map((value, i) => (terms[i]?.cast ? integerText(value) : value));
  const disjuncts: string[] = [];
  const bindings: string[] = [];
  terms.forEach((term, i) => {
    const equal = terms.slice(0, i).map((before) => `${before.quoted} = ${before.placeholder}`);
    const last = i === terms.length - 1;
    const op = side === "after" ? ">" : last ? "<=" : "<";
    disjuncts.push(`(${[...equal, `${term.quoted} ${op} ${term.placeholder}`].join(" AND ")})`);
    bindings.push(...bound.slice(0, i + 1));
  });
  return { sql: `(${disjuncts.join(" OR ")})`, values: bindings };
}

/** The key columns as text, in the order of the key: the cursor a slice ends on. */
export function keyColumnsAsText(key: readonly SourceColumn[]): string {
  return key.map((column) => `CAST(${quoteIdentifier(column.name)} AS CHAR)`).join(", ");
}

/** The key columns in key order, for ORDER BY. */
export function keyOrder(key: readonly SourceColumn[]): string {
  return key.map((column) => quoteIdentifier(column.name)).join(", ");
}
