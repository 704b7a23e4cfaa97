import type { ChunkTarget, DayChunk } from "../../model/day-chunks";
import type { DayScope } from "../../model/table-day";
import type { ChunkOutcome, DayDeleter, DeleteSideEffects } from "../../ports/day-deleter";
import {
  chunkCondition,
  chunkOrder,
  countDay,
  keyChunkFiguresQuery,
  keyChunkStartsQuery,
  lockChunkQuery,
  timeChunkPlanQuery,
} from "./chunk-queries";
import { chunkDiffers, sideEffectsAdded } from "./chunk-verdict";
import type { MysqlPool, MysqlPoolConnection } from "./create-mysql-pool";
import { dayCondition } from "./day-range";
import { deleteReturning, deletesReturning, fitsOneStatement } from "./delete-returning";
import {
  countDayReferences,
  readDeleteSideEffects,
  referenceCountError,
  referenceCountQuery,
} from "./delete-side-effects";
import { integerText } from "./key-range";
import { mapMysqlError } from "./map-mysql-error";
import { quoteIdentifier } from "./quote-identifier";
import { type ServerFacts, serverFactsOf } from "./server-facts";
import { createSideEffectWatch, describes } from "./side-effect-watch";
import { queryRows } from "./sql-query";

/** How long the side effects told to a task are told again without asking the server. */
const SIDE_EFFECTS_FRESH_MS = 2_000;

/**
 * DayDeleter on a pool made by createMysqlPool. Keys are bound as text and
 * compared as `CAST(? AS SIGNED|UNSIGNED)`, so keys beyond 2^53 compare as
 * integers, never as doubles. Each chunk is one transaction on one
 * connection: a locking read of the chunk (count, key sum, content
 * fingerprint), a locking count of the rows that reference it, the delete
 * only on an exact match and no reference, and a commit only when the delete
 * removed exactly the locked rows. On MariaDB 10.5+, a dense key chunk of a
 * table that nothing references and no trigger watches is one `DELETE …
 * RETURNING` instead (fitsOneStatement), committed only when the rows it returned match (delete-returning.ts);
 * `returning: false` keeps MySQL's way everywhere (tests of that way).
 */
export function createMysqlDayDeleter(
  pool: MysqlPool,
  settings: { readonly returning?: boolean } = {},
): DayDeleter {
  const facts = serverFactsOf(pool);
  const watch = createSideEffectWatch(facts);
  // Reading the keys with their columns costs more than their ids; a table's are read again only when the
  // cheap ids say they changed. The ids themselves are asked
  // at most every SIDE_EFFECTS_FRESH_MS per table: what a task is told only has to be recent, since every
  // chunk asks them again under its locks and stops at any key or trigger the task was not told of.
  const described = new Map<string, { readonly effects: DeleteSideEffects; readonly checkedAt: number }>();
  return {
    async sideEffects(table) {
      const known = described.get(table);
      if (known && performance.now() - known.checkedAt < SIDE_EFFECTS_FRESH_MS) return known.effects;
      const ids = await watch.ids(pool, table);
      const effects =
        known && describes(known.effects, ids)
          ? known.effects
          : await readDeleteSideEffects(pool, await facts(), table);
      if (describes(effects, ids)) described.set(table, { effects, checkedAt: performance.now() });
      else described.delete(table);
      return effects;
    },

    countReferences: async (target, keys) => countDayReferences(pool, await facts(), target, keys),

    async planChunks(target, chunkRows) {
      if (!Number.isSafeInteger(chunkRows) || chunkRows < 1)
        throw new Error(`chunk size must be a positive integer, got ${chunkRows}`);
      const query =
        target.by.kind === "key"
          ? keyChunkFiguresQuery(target, await keyChunkStarts(pool, target, chunkRows))
          : timeChunkPlanQuery(target, chunkRows);
      const rows = await queryRows(pool, query, target.scope);
      return rows.map((row) =>
        target.by.kind === "key"
          ? {
              first: integerText(String(row[0])),
              last: integerText(String(row[1])),
              rows: Number(row[2]),
              fingerprint: String(row[3]),
              sum: integerText(String(row[4])),
            }
          : {
              first: String(row[0]),
              last: String(row[1]),
              rows: Number(row[2]),
              fingerprint: String(row[3]),
            },
      );
    },

    async deleteChunk(target, chunk, sideEffects, options = {}) {
      const connection = await connect(pool, target.scope);
      try {
        await connection.query({ sql: "START TRANSACTION" });
        const server = await facts();
        const guard = {
          facts: server,
          sideEffects,
          sideEffectsAdded: watch.added,
          newestFirst: options.newestFirst ?? false,
        };
        const oneStatement =
          (settings.returning ?? deletesReturning(server)) && fitsOneStatement(target, chunk, sideEffects);
        const outcome = oneStatement
          ? await deleteReturning(connection, target, chunk, guard)
          : await lockAndDelete(connection, target, chunk, guard);
        await connection.query({ sql: outcome.kind === "deleted" ? "COMMIT" : "ROLLBACK" });
        connection.release();
        return outcome;
      } catch (error) {
        // A failed COMMIT may or may not have committed; the chunk is then
        // either intact or gone, and a retry tells which ("absent").
        await rollbackOrDestroy(connection);
        throw mapMysqlError(error, { table: target.scope.table, column: target.scope.column });
      }
    },

    describeDelete(scope, range) {
      const day = dayCondition(quoteIdentifier(scope.column), scope.day);
      const values = [...day.values];
      const where = day.sql.replace(/\?/g, () => `'${values.shift()}'`);
      const keyed = range
        ? ` AND ${quoteIdentifier(range.column)} BETWEEN ${integerText(range.min)} AND ${integerText(range.max)}`
        : "";
      return `DELETE FROM ${quoteIdentifier(scope.table)} WHERE ${where}${keyed}`;
    },
  };
}

async function lockAndDelete(
  connection: MysqlPoolConnection,
  target: ChunkTarget,
  chunk: DayChunk,
  guard: {
    readonly facts: ServerFacts;
    readonly sideEffects: DeleteSideEffects;
    readonly sideEffectsAdded: ReturnType<typeof createSideEffectWatch>["added"];
    readonly newestFirst: boolean;
  },
): Promise<ChunkOutcome> {
  const { sideEffects, newestFirst } = guard;
  const lock = lockChunkQuery(target, chunk);
  const [rows] = await connection.query({ sql: lock.sql, rowsAsArray: true }, [...lock.values]);
  const [count, fingerprint, sum] = (rows as unknown[][])[0] ?? [0, "0", "0"];
  const found = { rows: Number(count), fingerprint: String(fingerprint) };
  if (chunk.wholeDay) {
    // A row outside the chunk's range would stay; the day is then not what was copied.
    const dayRows = await countDay(connection, target);
    if (dayRows !== found.rows) return { kind: "changed", rows: dayRows, fingerprint: found.fingerprint };
  }
  if (found.rows === 0) return { kind: "absent" };
  const differs = chunkDiffers(chunk, found, sum === undefined ? undefined : BigInt(String(sum)));
  if (differs) return differs;
  // Keys or triggers created since the task read them (the task allowed the ones it knew of).
  const added = sideEffectsAdded(await guard.sideEffectsAdded(connection, target.scope.table, sideEffects));
  if (added) return added;
  const chunkRows = {
    where: (alias: string) => chunkCondition(target, chunk, alias),
    order: (alias: string) => chunkOrder(target, alias),
  };
  const references = [];
  for (const key of sideEffects.referencingKeys) {
    const query = referenceCountQuery(target.scope.table, key, chunkRows, true);
    const [counted] = await connection
      .query({ sql: query.sql, rowsAsArray: true }, [...query.values])
      .catch((error: unknown) => {
        throw referenceCountError(error, guard.facts, target.scope.table, key);
      });
    const referencingRows = Number((counted as unknown[][])[0]?.[0] ?? 0);
    if (referencingRows > 0) references.push({ key, rows: referencingRows });
  }
  if (references.length > 0) return { kind: "referenced", references };
  const where = chunkCondition(target, chunk);
  const order = newestFirst ? ` ORDER BY ${chunkOrder(target)} DESC` : "";
  const [result] = await connection.query(
    { sql: `DELETE FROM ${quoteIdentifier(target.scope.table)} WHERE ${where.sql}${order}` },
    [...where.values],
  );
  const deleted = (result as { affectedRows: number }).affectedRows;
  // Under READ COMMITTED no gap lock keeps a new row out of the range between
  // the two statements; a delete that removed more than it locked rolls back.
  if (deleted !== found.rows) return { kind: "changed", rows: deleted, fingerprint: "unknown" };
  return { kind: "deleted", rows: deleted };
}

/**
 * Where the day's key chunks start, after the first. Read apart from their
 * figures: rows that arrive in between only make a chunk a little larger,
 * since the figures are then counted over the key ranges these starts bound.
 */
async function keyChunkStarts(pool: MysqlPool, target: ChunkTarget, chunkRows: number): Promise<string[]> {
  const query = keyChunkStartsQuery(target, chunkRows);
  const rows = await queryRows(pool, query, target.scope);
  return rows.map((row) => String(row[0]));
}

async function connect(pool: MysqlPool, scope: DayScope): Promise<MysqlPoolConnection> {
  try {
    return await pool.getConnection();
  } catch (error) {
    throw mapMysqlError(error, { table: scope.table });
  }
}

/** A connection whose rollback fails is in an unknown state: close it rather than hand it back. */
async function rollbackOrDestroy(connection: MysqlPoolConnection): Promise<void> {
  try {
    await connection.query({ sql: "ROLLBACK" });
    connection.release();
  } catch {
    connection.destroy();
  }
}
