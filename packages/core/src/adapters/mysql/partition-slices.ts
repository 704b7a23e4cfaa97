import { integerKeyColumn, type SourceColumn, sliceableKey } from "../../model/table-schema";
import type { PartitionDays, PartitionedTable, PartitionRows } from "../../ports/partitioned-table";
import { figuresColumns } from "./day-queries";
import { integerText } from "./key-range";
import { quoteIdentifier } from "./quote-identifier";
import type { SqlQuery } from "./sql-query";

// A partition's or a twin's rows hashed in slices along a primary key of one or more columns (see sliceableKey).

/** One statement on the adapter's pool, its rows as arrays (see createMysqlPartitionedTable). */
type Run = (sql: string, values?: readonly unknown[], table?: string) => Promise<unknown[][]>;

/**
 * PartitionedTable.sliceFigures: a slice's rows hashed in one statement
 * along the primary key, between the key it starts after and its bound, the
 * key of the `limit`-th row after that start. The same statement finds the
 * next slice's bound (a scalar subquery walking the key without hashing), so
 * a slice costs one statement; a bound not given is found by a statement of
 * its own first. `readDays` reads the answer's rows as figures by day.
 */
export function createSliceFigures(
  run: Run,
  from: (table: string, rows: PartitionRows) => string,
  readDays: (answer: unknown[][], key?: string) => PartitionDays,
): PartitionedTable["sliceFigures"] {
  return async (schema, column, rows, { after, upTo, limit }) => {
    const keyColumns = sliceableKey(schema);
    if (!keyColumns) throw new Error(`${schema.name}: its primary key cannot be read in slices`);
    const source = `${from(schema.name, rows)} FORCE INDEX (PRIMARY)`;
    const everything = { sql: "TRUE", values: [] };
    // The key of the `limit`-th row after `start`, as a JSON array of texts; NULL when fewer rows follow.
    const bound = (start: readonly string[] | undefined): SqlQuery => {
      const where = start ? keyTupleCondition(keyColumns, start, "after") : everything;
      const keys = keyColumns.map((key) => `CAST(${quoteIdentifier(key.name)} AS CHAR)`).join(", ");
      const order = keyColumns.map((key) => quoteIdentifier(key.name)).join(", ");
      return {
        sql: `SELECT JSON_ARRAY(${keys}) FROM ${source} WHERE ${where.sql} ORDER BY ${order} LIMIT 1 OFFSET ${Math.max(1, Math.floor(limit)) - 1}`,
        values: where.values,
      };
    };
    // A twin keeps the statistics of the empty table it was created as, which would have the server scan all
    // of it for every slice rather than the slice's range of the key: the first slice has them read again.
    if (!after && "twinOf" in rows) {
      await run(`ANALYZE NO_WRITE_TO_BINLOG TABLE ${from(schema.name, rows)}`, [], schema.name);
    }
    let last = upTo;
    if (last === undefined) {
      const query = bound(after);
      const [found] = await run(query.sql, query.values, schema.name);
      last = keyOf(found?.[0]);
    }
    const start = after ? keyTupleCondition(keyColumns, after, "after") : everything;
    const end = last ? keyTupleCondition(keyColumns, last, "up to") : everything;
    const next = last ? bound(last) : undefined;
    const c = quoteIdentifier(column);
    const key = integerKeyColumn(schema)?.name;
    const answer = await run(
      `SELECT DATE_FORMAT(MIN(${c}), '%Y-%m-%d'), ${figuresColumns(schema, key)}${next ? `, (${next.sql})` : ""}
         FROM ${source} WHERE ${start.sql} AND ${end.sql} GROUP BY TO_DAYS(${c})`,
      [...(next?.values ?? []), ...start.values, ...end.values],
      schema.name,
    );
    const figures = readDays(next ? answer.map((row) => row.slice(0, -1)) : answer, key);
    if (!last) return { figures };
    // No row in the slice (the rows changed under it) leaves the next bound to be found on its own.
    const following = answer.length > 0 ? keyOf(answer[0]?.at(-1)) : undefined;
    return following === undefined ? { figures, last } : { figures, last, next: following };
  };
}

/** A bound's JSON array of key texts; null for none (SQL NULL). */
function keyOf(value: unknown): readonly string[] | null {
  if (value === null || value === undefined) return null;
  return (JSON.parse(String(value)) as unknown[]).map(String);
}

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
    const op = side === "after" ? ">" : i === terms.length - 1 ? "<=" : "<";
    disjuncts.push(`(${[...equal, `${term.quoted} ${op} ${term.placeholder}`].join(" AND ")})`);
    bindings.push(...bound.slice(0, i + 1));
  });
  return { sql: `(${disjuncts.join(" OR ")})`, values: bindings };
}
