import { RefusalError } from "../../errors";
import { dictionaryNames } from "./innodb-names";
import type { ServerFacts } from "./server-facts";
import type { SqlQuery } from "./sql-query";

// Where a cleanup reads what a delete would do besides removing rows. Every
// check, the one before planning and the one under each chunk's lock, reads
// the same sources, so they cannot disagree:
// - foreign keys that reference the table, from InnoDB's own dictionary
//   (MariaDB's INNODB_SYS_FOREIGN, MySQL 8's INNODB_FOREIGN). It lists every
//   key of every database whatever the account's table privileges, where
//   information_schema.REFERENTIAL_CONSTRAINTS hides the keys of tables the
//   account has no privilege on. Reading it takes PROCESS.
// - DELETE triggers, from information_schema.TRIGGERS, which shows a table's
//   triggers only to an account with the TRIGGER privilege on it (so both
//   servers document): the account's grants are read in the same statement,
//   and a trigger list without that proof is not taken as empty.

/** The dictionary views of foreign keys and their columns on this server. */
function dictionary(facts: ServerFacts): { readonly keys: string; readonly columns: string } {
  return facts.mariadb
    ? { keys: "information_schema.INNODB_SYS_FOREIGN", columns: "information_schema.INNODB_SYS_FOREIGN_COLS" }
    : { keys: "information_schema.INNODB_FOREIGN", columns: "information_schema.INNODB_FOREIGN_COLS" };
}

/** The condition on a dictionary row `f` whose referenced table is the cleaned one, and its values. */
function referencesTable(facts: ServerFacts, table: string): SqlQuery {
  const names = dictionaryNamesOf(facts, table);
  const one = facts.lowerCaseNames ? "LOWER(f.REF_NAME) = ?" : "f.REF_NAME = BINARY ?";
  return { sql: `(${names.map(() => one).join(" OR ")})`, values: names };
}

/** The table's names in InnoDB's dictionary; a name it spells in a way not read here refuses the cleanup. */
function dictionaryNamesOf(facts: ServerFacts, table: string): string[] {
  const names = dictionaryNames(facts.database, table, facts.lowerCaseNames);
  if (names !== undefined) return names;
  throw new RefusalError(
    `cleanup of "${table}" refused: the name of the table or its database has characters beyond ASCII, ` +
      "which InnoDB's dictionary spells in a way the archiver does not read, so the foreign keys that " +
      "reference it cannot be proven; nothing was deleted",
    { field: "clean_table", reason: "other" },
  );
}

/** Each referencing key's column pairs: id, child table, type bits, child column, parent column. */
export function referencingKeysQuery(facts: ServerFacts, table: string): SqlQuery {
  const { keys, columns } = dictionary(facts);
  const references = referencesTable(facts, table);
  return {
    sql:
      `SELECT f.ID, f.FOR_NAME, f.TYPE, c.FOR_COL_NAME, c.REF_COL_NAME FROM ${keys} f ` +
      `JOIN ${columns} c ON c.ID = f.ID WHERE ${references.sql} ORDER BY f.FOR_NAME, f.ID, c.POS`,
    values: references.values,
  };
}

/**
 * One statement for every chunk, rows of [kind, name, id]: `k` rows (each
 * referencing key's child table and id), `t` rows (DELETE trigger names) and
 * one `p` row (how many of the account's grants give it TRIGGER on the table:
 * 0 means the trigger list proves nothing).
 */
export function sideEffectIdsQuery(facts: ServerFacts, table: string): SqlQuery {
  const { keys } = dictionary(facts);
  const references = referencesTable(facts, table);
  return {
    sql:
      `SELECT 'k', f.FOR_NAME, f.ID FROM ${keys} f WHERE ${references.sql} ` +
      `UNION ALL ${DELETE_TRIGGERS_SQL} UNION ALL SELECT 'p', COUNT(*), '' FROM (${TRIGGER_GRANTS_SQL}) g`,
    values: [...references.values, table, ...triggerGrantValues(facts, table)],
  };
}

const DELETE_TRIGGERS_SQL = `SELECT 't', TRIGGER_NAME, '' FROM information_schema.TRIGGERS
  WHERE EVENT_OBJECT_SCHEMA = DATABASE() AND EVENT_OBJECT_TABLE = ? AND EVENT_MANIPULATION = 'DELETE'`;

/**
 * The account's own grants that give it TRIGGER on the table: global, on the
 * database (a database grant's name is a LIKE pattern, as GRANT reads it), or
 * on the table. Grants held only through a role are not listed here, so such
 * an account is refused: grant the account itself.
 */
const TRIGGER_GRANTS_SQL = `SELECT 1 FROM information_schema.USER_PRIVILEGES
    WHERE GRANTEE = ? AND PRIVILEGE_TYPE = 'TRIGGER'
  UNION ALL SELECT 1 FROM information_schema.SCHEMA_PRIVILEGES
    WHERE GRANTEE = ? AND DATABASE() LIKE BINARY TABLE_SCHEMA AND PRIVILEGE_TYPE = 'TRIGGER'
  UNION ALL SELECT 1 FROM information_schema.TABLE_PRIVILEGES
    WHERE GRANTEE = ? AND TABLE_SCHEMA = BINARY DATABASE() AND TABLE_NAME = BINARY ? AND PRIVILEGE_TYPE = 'TRIGGER'`;

function triggerGrantValues(facts: ServerFacts, table: string): string[] {
  return [facts.account, facts.account, facts.account, table];
}

/** How many of the account's grants give it TRIGGER on the table (see TRIGGER_GRANTS_SQL). */
export function triggerGrantsQuery(facts: ServerFacts, table: string): SqlQuery {
  return { sql: `SELECT COUNT(*) FROM (${TRIGGER_GRANTS_SQL}) g`, values: triggerGrantValues(facts, table) };
}

/** The table's DELETE trigger names (second column). */
export function deleteTriggersQuery(table: string): SqlQuery {
  return { sql: DELETE_TRIGGERS_SQL, values: [table] };
}

/** The ON DELETE rule of a dictionary row's type bits (InnoDB's DICT_FOREIGN_ON_DELETE_* flags). */
export function onDeleteRule(type: number): string {
  if (type & 1) return "CASCADE";
  if (type & 2) return "SET NULL";
  if (type & 16) return "NO ACTION";
  return "RESTRICT";
}
