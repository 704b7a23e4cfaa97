import type { ChunkTarget } from "../../model/day-chunks";
import type { DeleteSideEffects, ReferenceCount, ReferencingKey } from "../../ports/day-deleter";
import { chunkOrder } from "./chunk-queries";
import type { MysqlPool } from "./create-mysql-pool";
import { dayCondition } from "./day-range";
import { constraintOfId, fromDictionaryName } from "./innodb-names";
import { mapMysqlError } from "./map-mysql-error";
import { grantStatement, isAccessDenied, privilegeRefusal, qualifiedName } from "./privilege-refusal";
import { quoteIdentifier } from "./quote-identifier";
import type { Queryable, ServerFacts } from "./server-facts";
import {
  deleteTriggersQuery,
  onDeleteRule,
  referencingKeysQuery,
  triggerGrantsQuery,
} from "./side-effect-queries";
import type { SqlQuery } from "./sql-query";

/**
 * The table's referencing foreign keys (from InnoDB's dictionary, every
 * database) and DELETE triggers, read now. Throws a refusal naming the grant
 * when the account cannot prove it sees all of them (see side-effect-queries.ts).
 */
export async function readDeleteSideEffects(
  db: Queryable,
  facts: ServerFacts,
  table: string,
): Promise<DeleteSideEffects> {
  const keys = referencingKeysQuery(facts, table);
  const triggers = deleteTriggersQuery(table);
  const grants = triggerGrantsQuery(facts, table);
  try {
    const [[keyRows], [triggerRows], [[granted]]] = (await Promise.all([
      db.query({ sql: keys.sql, rowsAsArray: true }, [...keys.values]),
      db.query({ sql: triggers.sql, rowsAsArray: true }, [...triggers.values]),
      db.query({ sql: grants.sql, rowsAsArray: true }, [...grants.values]),
    ])) as unknown as [[unknown[][]], [unknown[][]], [[unknown[]]]];
    requireTriggerGrant(facts, table, Number(granted?.[0] ?? 0));
    return {
      referencingKeys: groupKeys(keyRows, table, facts),
      deleteTriggers: triggerRows.map(([, name]) => String(name)),
    };
  } catch (error) {
    throw sideEffectError(error, facts, table);
  }
}

/** A trigger list is proof of no trigger only when the account may see them all. */
export function requireTriggerGrant(facts: ServerFacts, table: string, grants: number): void {
  if (grants > 0) return;
  throw privilegeRefusal(
    table,
    "see its DELETE triggers",
    "the TRIGGER privilege on it",
    grantStatement("TRIGGER", qualifiedName(facts.database, table), facts.account),
  );
}

/** A denied read of InnoDB's dictionary becomes the refusal that names PROCESS; the rest are mapped. */
export function sideEffectError(error: unknown, facts: ServerFacts, table: string): unknown {
  if (!isAccessDenied(error)) return mapMysqlError(error, { table });
  return privilegeRefusal(
    table,
    "see the foreign keys that reference it (InnoDB's dictionary)",
    "PROCESS",
    grantStatement("PROCESS", "*.*", facts.account),
  );
}

function groupKeys(rows: readonly unknown[][], table: string, facts: ServerFacts): ReferencingKey[] {
  const same = (a: string, b: string) =>
    facts.lowerCaseNames ? a.toLowerCase() === b.toLowerCase() : a === b;
  const keys = new Map<string, ReferencingKey & { childColumns: string[]; parentColumns: string[] }>();
  for (const [id, childName, type, column, referenced] of rows) {
    const keyOf = `${String(childName)}\n${String(id)}`;
    let key = keys.get(keyOf);
    if (!key) {
      const child = fromDictionaryName(String(childName));
      key = {
        constraint: constraintOfId(String(id), String(childName)),
        childSchema: child.database,
        childTable: child.name,
        childColumns: [],
        parentColumns: [],
        onDelete: onDeleteRule(Number(type)),
        selfReferencing: same(child.database, facts.database) && same(child.name, table),
      };
      keys.set(keyOf, key);
    }
    key.childColumns.push(String(column));
    key.parentColumns.push(String(referenced));
  }
  return [...keys.values()];
}

/** Aliases of the two sides in reference queries. */
const PARENT = "archiver_parent";
const CHILD = "archiver_child";

/** The rows in question, as a condition on the cleaned table written for an alias, and the column they are deleted in order of. */
export interface ReferencedRows {
  readonly where: (alias: string) => SqlQuery;
  /** Rows are deleted from the highest value of this column down (see DayDeleter.deleteChunk's `newestFirst`). */
  readonly order: (alias: string) => string;
}

/**
 * Counts the rows of `key`'s table that reference `rows`. A
 * self-referencing key leaves out the referencing rows that are among `rows`
 * themselves and come later in `order` (newer): deleted newest first, they go
 * before the rows they reference. `locking` reads under shared locks, so a
 * child row being inserted meanwhile is either seen or waits for the delete's
 * commit.
 */
export function referenceCountQuery(
  table: string,
  key: ReferencingKey,
  rows: ReferencedRows,
  locking: boolean,
): SqlQuery {
  const parent = rows.where(PARENT);
  const join = key.childColumns
    .map(
      (column, i) =>
        `${CHILD}.${quoteIdentifier(column)} = ${PARENT}.${quoteIdentifier(key.parentColumns[i] ?? "")}`,
    )
    .join(" AND ");
  const own = key.selfReferencing ? rows.where(CHILD) : undefined;
  const deletedFirst = own
    ? ` AND NOT ((${own.sql}) IS TRUE AND ${rows.order(CHILD)} > ${rows.order(PARENT)})`
    : "";
  const child = `${quoteIdentifier(key.childSchema)}.${quoteIdentifier(key.childTable)}`;
  return {
    sql:
      `SELECT COUNT(*) FROM ${child} AS ${CHILD} JOIN ${quoteIdentifier(table)} AS ${PARENT} ON ${join} ` +
      `WHERE ${parent.sql}${deletedFirst}${locking ? " LOCK IN SHARE MODE" : ""}`,
    values: [...parent.values, ...(own?.values ?? [])],
  };
}

/** `countReferences` of the DayDeleter port: one query per key, none locking. */
export async function countDayReferences(
  pool: MysqlPool,
  facts: ServerFacts,
  target: ChunkTarget,
  keys: readonly ReferencingKey[],
): Promise<ReferenceCount[]> {
  const { scope } = target;
  const day = {
    where: (alias: string) => dayCondition(`${alias}.${quoteIdentifier(scope.column)}`, scope.day),
    order: (alias: string) => chunkOrder(target, alias),
  };
  return Promise.all(
    keys.map(async (key) => {
      const query = referenceCountQuery(scope.table, key, day, false);
      try {
        const [rows] = await pool.query({ sql: query.sql, rowsAsArray: true }, [...query.values]);
        return { key, rows: Number((rows as unknown[][])[0]?.[0] ?? 0) };
      } catch (error) {
        throw referenceCountError(error, facts, scope.table, key);
      }
    }),
  );
}

/** A referencing table the account may not read: its references cannot be counted, so the cleanup stops. */
export function referenceCountError(
  error: unknown,
  facts: ServerFacts,
  table: string,
  key: ReferencingKey,
): unknown {
  if (!isAccessDenied(error)) return mapMysqlError(error, { table });
  const child = qualifiedName(key.childSchema, key.childTable);
  return privilegeRefusal(
    table,
    `count the rows of ${child} that reference it through foreign key ${key.constraint}`,
    `SELECT on ${child}`,
    grantStatement("SELECT", child, facts.account),
  );
}
