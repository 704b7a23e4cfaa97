import type { DeleteSideEffects, ReferencingKey } from "../../ports/day-deleter";
import type { MysqlPool } from "./create-mysql-pool";

/** A pool or one connection of it. */
type Queryable = Pick<MysqlPool, "query">;

/**
 * Where a server lists the foreign keys that reference a table, cheapest
 * first. InnoDB's own dictionary answers in a fraction of a millisecond
 * (MariaDB calls it INNODB_SYS_FOREIGN, MySQL 8 INNODB_FOREIGN; both need the
 * PROCESS privilege); information_schema.REFERENTIAL_CONSTRAINTS works
 * everywhere but reads every table's definition on some servers. Each gives
 * `database/constraint` ids.
 */
const FOREIGN_KEY_SOURCES = [
  "SELECT 'k', ID FROM information_schema.INNODB_SYS_FOREIGN WHERE REF_NAME = CONCAT(DATABASE(), '/', ?)",
  "SELECT 'k', ID FROM information_schema.INNODB_FOREIGN WHERE REF_NAME = CONCAT(DATABASE(), '/', ?)",
  `SELECT 'k', CONCAT(CONSTRAINT_SCHEMA, '/', CONSTRAINT_NAME) FROM information_schema.REFERENTIAL_CONSTRAINTS
    WHERE UNIQUE_CONSTRAINT_SCHEMA = DATABASE() AND REFERENCED_TABLE_NAME = ?`,
] as const;

const DELETE_TRIGGERS_SQL = `SELECT 't', TRIGGER_NAME FROM information_schema.TRIGGERS
  WHERE EVENT_OBJECT_SCHEMA = DATABASE() AND EVENT_OBJECT_TABLE = ? AND EVENT_MANIPULATION = 'DELETE'`;

/** The ids of a table's referencing foreign keys (`database/constraint`, lower case) and its DELETE triggers. */
export interface SideEffectIds {
  readonly keys: readonly string[];
  readonly triggers: readonly string[];
}

/**
 * Reads a table's side-effect ids cheaply enough to ask before every chunk's
 * delete (`ids`), and tells what a table gained beyond `known` (`added`).
 * Asked on the chunk's connection after its locking read: creating a trigger
 * waits for the lock the chunk holds on the table, so none can appear between
 * this answer and the commit. An id it cannot match (a name the dictionary
 * spells differently) counts as new: the chunk then stops rather than guess.
 */
export function createSideEffectWatch() {
  let source = 0;
  /** Both lists in one statement (one round trip on the chunk's connection), `k` rows then `t` rows. */
  async function ids(db: Queryable, table: string): Promise<SideEffectIds> {
    for (;;) {
      try {
        const sql = `${FOREIGN_KEY_SOURCES[source] ?? ""} UNION ALL ${DELETE_TRIGGERS_SQL}`;
        const [rows] = await db.query({ sql, rowsAsArray: true }, [table, table]);
        const keys: string[] = [];
        const triggers: string[] = [];
        for (const [kind, id] of rows as unknown[][]) {
          if (kind === "k") keys.push(String(id).toLowerCase());
          else triggers.push(String(id));
        }
        return { keys, triggers };
      } catch (error) {
        // A server without that view, or a user without PROCESS: the next source, remembered.
        if (source === FOREIGN_KEY_SOURCES.length - 1) throw error;
        source += 1;
      }
    }
  }
  return {
    ids,
    async added(db: Queryable, table: string, known: DeleteSideEffects): Promise<DeleteSideEffects> {
      const now = await ids(db, table);
      const knownKeys = new Set(known.referencingKeys.map(keyId));
      const knownTriggers = new Set(known.deleteTriggers);
      return {
        referencingKeys: now.keys.filter((id) => !knownKeys.has(id)).map(unknownKey),
        deleteTriggers: now.triggers.filter((name) => !knownTriggers.has(name)),
      };
    },
  };
}

/** True when `effects` has exactly the keys and triggers of `ids`. */
export function describes(effects: DeleteSideEffects, ids: SideEffectIds): boolean {
  const keys = new Set(effects.referencingKeys.map(keyId));
  const triggers = new Set(effects.deleteTriggers);
  return (
    keys.size === ids.keys.length &&
    ids.keys.every((id) => keys.has(id)) &&
    triggers.size === ids.triggers.length &&
    ids.triggers.every((name) => triggers.has(name))
  );
}

function keyId(key: ReferencingKey): string {
  return `${key.childSchema}/${key.constraint}`.toLowerCase();
}

/** A key known only by its id: enough to name it in the refusal. */
function unknownKey(id: string): ReferencingKey {
  const [schema = "", constraint = id] = id.split("/");
  return {
    constraint,
    childSchema: schema,
    childTable: "a table",
    childColumns: [],
    parentColumns: [],
    onDelete: "unknown",
    selfReferencing: false,
  };
}
