import type { DayChunk } from "../../model/day-chunks";
import type { ChunkOutcome, DeleteSideEffects } from "../../ports/day-deleter";

/**
 * "changed" when what a chunk's delete found under its locks (rows, content
 * fingerprint, key sum) is not what the plan says; undefined when it is.
 * Both ways of deleting a chunk judge it here: a locked read before the
 * delete, or the rows `DELETE … RETURNING` removed.
 */
export function chunkDiffers(
  chunk: DayChunk,
  found: { readonly rows: number; readonly fingerprint: string },
  /** The found keys' sum; none for time chunks. */
  sum: bigint | undefined,
): ChunkOutcome | undefined {
  const keyed = chunk.sum !== undefined;
  if (
    found.rows === chunk.rows &&
    found.fingerprint === chunk.fingerprint &&
    (!keyed || sum === BigInt(chunk.sum))
  )
    return undefined;
  return { kind: "changed", ...found, ...(keyed ? { sum: String(sum) } : {}) };
}

/** "side-effects-added" when the table gained a foreign key or trigger beyond those the task allowed. */
export function sideEffectsAdded(added: DeleteSideEffects): ChunkOutcome | undefined {
  return added.referencingKeys.length > 0 || added.deleteTriggers.length > 0
    ? { kind: "side-effects-added", added }
    : undefined;
}
