import type { DayChunk } from "../../../model/day-chunks";

/**
 * How many planned chunks the next delete takes together, so that a delete
 * lasts about `targetMs` (short transactions whatever the rows cost on this
 * server), the way pt-online-schema-change sizes its chunks by time. The
 * planned chunks are the unit: a delete of several is one transaction over
 * their joined range, with their summed figures, and never more than `max`
 * of them. Without a target every delete takes one planned chunk.
 *
 * It shrinks as soon as one delete is slower than the pace so far, and grows
 * back gradually. It starts at one chunk and grows only after a delete that found its rows:
 * after a crash the chunks an earlier attempt deleted (whole merged runs of
 * them) are found gone one by one, never inside a run that also holds rows.
 */
export function createChunkPacer(options: { readonly targetMs: number; readonly max: number }) {
  let take = 1;
  /** Milliseconds per row of the deletes so far, smoothed. */
  let msPerRow: number | undefined;
  return {
    /** Planned chunks the next delete takes, at most `left`. */
    next(left: number): number {
      return Math.max(1, Math.min(take, left, options.max));
    },
    /** What the last delete did: `rows` found and deleted in `ms`; 0 rows (gone) starts over at one chunk. */
    observe(rows: number, ms: number, rowsPerChunk: number): void {
      if (options.targetMs <= 0 || rows === 0) {
        take = 1;
        return;
      }
      const sample = ms / rows;
      // Slower at once, faster gradually: a server that slows down (a checkpoint, a burst of the
      // application) gets shorter deletes from the very next one, not after several long ones.
      msPerRow = msPerRow === undefined || sample > msPerRow ? sample : 0.7 * msPerRow + 0.3 * sample;
      const wanted = Math.floor(options.targetMs / (msPerRow * Math.max(1, rowsPerChunk)));
      // Grow by at most double at a time: one fast delete is not yet a pace.
      take = Math.max(1, Math.min(wanted, take * 2, options.max));
    },
  };
}

/** Consecutive planned chunks as one: the first's start, the last's end, their figures summed. */
export function joinChunks(chunks: readonly DayChunk[]): DayChunk {
  const [first] = chunks;
  const last = chunks.at(-1);
  if (!first || !last) throw new Error("no chunks to join");
  if (chunks.length === 1) return first;
  const keyed = chunks.every((chunk) => chunk.sum !== undefined);
  return {
    first: first.first,
    last: last.last,
    rows: chunks.reduce((rows, chunk) => rows + chunk.rows, 0),
    fingerprint: chunks.reduce((sum, chunk) => sum + BigInt(chunk.fingerprint), 0n).toString(),
    ...(keyed ? { sum: chunks.reduce((sum, chunk) => sum + BigInt(chunk.sum ?? 0), 0n).toString() } : {}),
    ...(chunks.some((chunk) => chunk.wholeDay) ? { wholeDay: true } : {}),
  };
}
