import type { ChunkTarget, DayChunk } from "../../model/day-chunks";
import type { ChunkOutcome, DeleteSideEffects } from "../../ports/day-deleter";
import { chunkCondition, chunkOrder, countDay } from "./chunk-queries";
import { chunkDiffers, sideEffectsAdded } from "./chunk-verdict";
import type { MysqlPoolConnection } from "./create-mysql-pool";
import { HashSum } from "./hash-sum";
import { isDenseKeyRange } from "./key-range";
import { isReferencedRowError } from "./map-mysql-error";
import { quoteIdentifier } from "./quote-identifier";
import { readPlan } from "./read-plan";
import { clientRowHasher, rowHashHex } from "./row-fingerprint";
import type { ServerFacts } from "./server-facts";
import type { createSideEffectWatch } from "./side-effect-watch";

/**
 * The most rows one `DELETE … RETURNING` hands back to the archiver at once;
 * a larger chunk (a whole day its copy record vouches for) is locked and
 * counted on the server instead.
 */
export const RETURNING_MAX_ROWS = 10_000;

/** MariaDB 10.5 and later return a DELETE's rows (`DELETE … RETURNING`); MySQL does not. */
export function deletesReturning(facts: ServerFacts): boolean {
  const [major = 0, minor = 0] = facts.version.split(".").map(Number);
  return facts.mariadb && (major > 10 || (major === 10 && minor >= 5));
}

/**
 * A chunk can be deleted and verified in one statement when it is a dense
 * range of keys (at most DENSE_KEY_FACTOR keys a row: however many rows
 * arrived since the copy, the statement can remove and return only a few
 * times the chunk's) of at most RETURNING_MAX_ROWS rows, and deleting them
 * reaches no other table: a foreign key that references the table must be
 * counted under the chunk's locks before anything is deleted (a CASCADE
 * would otherwise have run), and a known DELETE trigger must fire only for
 * rows already proven. Time chunks (tables without one integer key) could
 * have gained any number of late rows, which a delete would remove before
 * finding out; their locking read only reads them.
 */
export function fitsOneStatement(
  target: ChunkTarget,
  chunk: DayChunk,
  sideEffects: DeleteSideEffects,
): boolean {
  return (
    target.by.kind === "key" &&
    chunk.rows <= RETURNING_MAX_ROWS &&
    isDenseKeyRange(chunk.first, chunk.last, chunk.rows) &&
    sideEffects.referencingKeys.length === 0 &&
    sideEffects.deleteTriggers.length === 0
  );
}

/**
 * Deletes the chunk's rows and proves them in the same statement, inside the
 * caller's transaction: `DELETE … RETURNING` hands back each row it removed,
 * read as the copy reads rows and hashed here as the copy hashes them (the
 * server hashes only what the archiver cannot rebuild byte for byte, see
 * clientRowHasher). The caller commits only a "deleted" outcome: the count,
 * key sum and fingerprint of exactly the rows removed matched the chunk's,
 * and, asked under the locks the delete holds, the table gained no foreign
 * key or trigger. Anything else rolls back, so nothing unproven is ever
 * committed. The server reads each row once, where a locked read and then a
 * delete read it twice, and never hashes it.
 */
export async function deleteReturning(
  connection: MysqlPoolConnection,
  target: ChunkTarget,
  chunk: DayChunk,
  guard: {
    readonly sideEffects: DeleteSideEffects;
    readonly sideEffectsAdded: ReturnType<typeof createSideEffectWatch>["added"];
  },
): Promise<ChunkOutcome> {
  const { schema, by } = target;
  if (by.kind !== "key") throw new Error("DELETE … RETURNING takes key chunks only (fitsOneStatement)");
  const hashRow = clientRowHasher(schema);
  const keyAt = schema.columns.findIndex((column) => column.name === by.column);
  const returning = hashRow ? readPlan(schema).selectList : `${rowHashHex(schema)}, ${chunkOrder(target)}`;
  const where = chunkCondition(target, chunk);
  const addedSince = async () =>
    sideEffectsAdded(await guard.sideEffectsAdded(connection, target.scope.table, guard.sideEffects));
  let removed: unknown[][];
  try {
    const [rows] = await connection.query(
      {
        sql: `DELETE FROM ${quoteIdentifier(target.scope.table)} WHERE ${where.sql} RETURNING ${returning}`,
        rowsAsArray: true,
      },
      [...where.values],
    );
    removed = rows as unknown[][];
  } catch (error) {
    // A foreign key added since the task read the table's refused the delete: say which.
    if (isReferencedRowError(error)) {
      const added = await addedSince();
      if (added) return added;
    }
    throw error;
  }
  const fingerprint = new HashSum();
  let sum = 0n;
  for (const row of removed) {
    const hash = hashRow ? hashRow(row) : BigInt(`0x${row[0] as string}`);
    fingerprint.add(Number(hash & 0xffffffffn), Number(hash >> 32n));
    sum += BigInt(String(row[hashRow ? keyAt : 1]));
  }
  const found = { rows: removed.length, fingerprint: fingerprint.text() };
  if (chunk.wholeDay) {
    // A row outside the chunk's range would stay; the day is then not what was copied.
    const left = await countDay(connection, target);
    if (left > 0) return { kind: "changed", rows: found.rows + left, fingerprint: "unknown" };
  }
  if (found.rows === 0) return { kind: "absent" };
  return chunkDiffers(chunk, found, sum) ?? (await addedSince()) ?? { kind: "deleted", rows: found.rows };
}
