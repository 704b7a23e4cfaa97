import type { DeleteSideEffects, ReferencingKey } from "../../ports/day-deleter";
import { requireTriggerGrant, sideEffectError } from "./delete-side-effects";
import { constraintOfId, fromDictionaryName } from "./innodb-names";
import type { Queryable, ServerFacts } from "./server-facts";
import { sideEffectIdsQuery } from "./side-effect-queries";

/** The ids of a table's referencing foreign keys (`database/table/constraint`, lower case) and its DELETE triggers. */
export interface SideEffectIds {
  readonly keys: readonly string[];
  readonly triggers: readonly string[];
}

/**
 * Reads a table's side-effect ids cheaply enough to ask before every chunk's
 * delete (`ids`), and tells what a table gained beyond `known` (`added`).
 * Asked on the chunk's connection after its locking read: creating a trigger
 * waits for the lock the chunk holds on the table, so none can appear between
 * this answer and the commit. The ids come from the same sources as the full
 * read (readDeleteSideEffects), with the same proof that the account sees
 * every trigger, so the two agree on an unchanged table; an account that can
 * no longer prove it stops the chunk with the grant it lacks.
 */
export function createSideEffectWatch(facts: () => Promise<ServerFacts>) {
  /** Both lists in one statement (one round trip on the chunk's connection). */
  async function ids(db: Queryable, table: string): Promise<SideEffectIds> {
    const server = await facts();
    const query = sideEffectIdsQuery(server, table);
    let rows: unknown[][];
    try {
      [rows] = (await db.query({ sql: query.sql, rowsAsArray: true }, [...query.values])) as unknown as [
        unknown[][],
      ];
    } catch (error) {
      throw sideEffectError(error, server, table);
    }
    const keys: string[] = [];
    const triggers: string[] = [];
    let grants = 0;
    for (const [kind, name, id] of rows) {
      if (kind === "k") {
        const child = fromDictionaryName(String(name));
        keys.push(
          `${child.database}/${child.name}/${constraintOfId(String(id), String(name))}`.toLowerCase(),
        );
      } else if (kind === "t") triggers.push(String(name));
      else grants = Number(name);
    }
    requireTriggerGrant(server, table, grants);
    return { keys, triggers };
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
  return `${key.childSchema}/${key.childTable}/${key.constraint}`.toLowerCase();
}

/** A key known only by its id: enough to name it in the refusal. */
function unknownKey(id: string): ReferencingKey {
  const [schema = "", table = "", ...constraint] = id.split("/");
  return {
    constraint: constraint.join("/"),
    childSchema: schema,
    childTable: table,
    childColumns: [],
    parentColumns: [],
    onDelete: "unknown",
    selfReferencing: false,
  };
}
