import type { ChunkTarget, DeleteSideEffects, ReferenceCount, ReferencingKey } from "../../ports/day-deleter";
import { chunkOrder } from "./chunk-queries";
import type { MysqlPool } from "./create-mysql-pool";
import { dayCondition, type SqlCondition } from "./day-range";
import { mapMysqlError } from "./map-mysql-error";
import { quoteIdentifier } from "./quote-identifier";

// Every foreign key, in any database, whose referenced table is this one; one row per column pair.
const REFERENCING_KEYS_SQL = `SELECT k.CONSTRAINT_SCHEMA, k.CONSTRAINT_NAME, k.TABLE_NAME, k.COLUMN_NAME,
    k.REFERENCED_COLUMN_NAME, r.DELETE_RULE
  FROM information_schema.KEY_COLUMN_USAGE k
  JOIN information_schema.REFERENTIAL_CONSTRAINTS r
    ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME
   AND r.TABLE_NAME = k.TABLE_NAME
  WHERE k.REFERENCED_TABLE_SCHEMA = DATABASE() AND k.REFERENCED_TABLE_NAME = ?
  ORDER BY k.CONSTRAINT_SCHEMA, k.TABLE_NAME, k.CONSTRAINT_NAME, k.ORDINAL_POSITION`;

const DELETE_TRIGGERS_SQL = `SELECT TRIGGER_NAME FROM information_schema.TRIGGERS
  WHERE EVENT_OBJECT_SCHEMA = DATABASE() AND EVENT_OBJECT_TABLE = ? AND EVENT_MANIPULATION = 'DELETE'
  ORDER BY TRIGGER_NAME`;

/** A pool or one connection of it: what reading the side effects needs. */
type Queryable = Pick<MysqlPool, "query">;

/** The table's referencing foreign keys and DELETE triggers, as information_schema has them now. */
export async function readDeleteSideEffects(db: Queryable, table: string): Promise<DeleteSideEffects> {
  try {
    const [[keyRows], [triggerRows], [[database]]] = (await Promise.all([
      db.query({ sql: REFERENCING_KEYS_SQL, rowsAsArray: true }, [table]),
      db.query({ sql: DELETE_TRIGGERS_SQL, rowsAsArray: true }, [table]),
      db.query({ sql: "SELECT DATABASE()", rowsAsArray: true }),
    ])) as unknown as [[string[][]], [string[][]], [[string[]]]];
    return {
      referencingKeys: groupKeys(keyRows, table, String(database?.[0])),
      deleteTriggers: triggerRows.map(([name]) => String(name)),
    };
  } catch (error) {
    throw mapMysqlError(error, { table });
  }
}

function groupKeys(rows: readonly string[][], table: string, database: string): ReferencingKey[] {
  const keys = new Map<string, ReferencingKey & { childColumns: string[]; parentColumns: string[] }>();
  for (const [schema, constraint, childTable, column, referenced, rule] of rows) {
    const id = JSON.stringify([schema, childTable, constraint]);
    let key = keys.get(id);
    if (!key) {
      key = {
        constraint: String(constraint),
        childSchema: String(schema),
        childTable: String(childTable),
        childColumns: [],
        parentColumns: [],
        onDelete: String(rule),
        selfReferencing: schema === database && childTable === table,
      };
      keys.set(id, key);
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
  readonly where: (alias: string) => SqlCondition;
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
): SqlCondition {
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
  target: ChunkTarget,
  keys: readonly ReferencingKey[],
): Promise<ReferenceCount[]> {
  const { scope } = target;
  const day = {
    where: (alias: string) => dayCondition(`${alias}.${quoteIdentifier(scope.column)}`, scope.day),
    order: (alias: string) => chunkOrder(target, alias),
  };
  try {
    return await Promise.all(
      keys.map(async (key) => {
        const query = referenceCountQuery(scope.table, key, day, false);
        const [rows] = await pool.query({ sql: query.sql, rowsAsArray: true }, [...query.values]);
        return { key, rows: Number((rows as unknown[][])[0]?.[0] ?? 0) };
      }),
    );
  } catch (error) {
    throw mapMysqlError(error, { table: scope.table, column: scope.column });
  }
}
