import { COPY_CHUNK_ROWS, type DayChunk } from "../../model/day-chunks";

/**
 * The most rows whose keys a copy keeps to cut its day into chunks (16 bytes
 * a row, 64 MB here); a larger day is recorded without chunks, and its
 * cleanup plans it by reading it again.
 */
export const MAX_CHUNKED_ROWS = 4_000_000;

/** Collects a day's (key, row hash) pairs as they stream, in any order, and cuts the day into key chunks. */
export interface KeyChunker {
  add(key: unknown, hash: bigint): void;
  /** The day's chunks in key order; undefined past MAX_CHUNKED_ROWS. */
  chunks(): DayChunk[] | undefined;
}

/**
 * Cuts a day into chunks of `rowsPerChunk` rows by key, from each row's key
 * and 64-bit hash kept in typed arrays (never the rows): the copy reads the
 * day in whatever order the server finds cheapest. Once the stream ends, the
 * keys are sorted, every `rowsPerChunk`-th starts a chunk, and each row's
 * hash goes to the chunk its key falls in. The chunks are contiguous: each
 * ends one key before the next starts, so together they cover every key from
 * the day's smallest to its largest, and a row that arrives later anywhere in
 * that span lands in some chunk and changes its figures.
 */
export function createKeyChunker(unsigned: boolean, rowsPerChunk = COPY_CHUNK_ROWS): KeyChunker {
  const make = (size: number) => (unsigned ? new BigUint64Array(size) : new BigInt64Array(size));
  let keys = make(1024);
  let hashes = new BigUint64Array(1024);
  let count = 0;
  return {
    add(key, hash) {
      if (count > MAX_CHUNKED_ROWS) return;
      if (count === keys.length) {
        const size = Math.min(keys.length * 2, MAX_CHUNKED_ROWS + 1);
        const grownKeys = make(size);
        grownKeys.set(keys as never);
        keys = grownKeys;
        const grownHashes = new BigUint64Array(size);
        grownHashes.set(hashes);
        hashes = grownHashes;
      }
      keys[count] = BigInt(key as string);
      hashes[count] = hash;
      count += 1;
    },
    chunks() {
      if (count > MAX_CHUNKED_ROWS) return undefined;
      const sorted = keys.slice(0, count).sort();
      const starts: bigint[] = [];
      for (let i = 0; i < count; i += rowsPerChunk) starts.push(sorted[i] as bigint);
      const rows = new Array<number>(starts.length).fill(0);
      const sums = new Array<bigint>(starts.length).fill(0n);
      for (let row = 0; row < count; row++) {
        const at = chunkOf(starts, keys[row] as bigint);
        rows[at] = (rows[at] as number) + 1;
        sums[at] = (sums[at] as bigint) + (hashes[row] as bigint);
      }
      return starts.map((first, at) => ({
        first: first.toString(),
        last: (at + 1 < starts.length
          ? (starts[at + 1] as bigint) - 1n
          : (sorted[count - 1] as bigint)
        ).toString(),
        rows: rows[at] as number,
        fingerprint: (sums[at] as bigint).toString(),
      }));
    },
  };
}

/** The last start at or below `key` (binary search; `starts` rises). */
function chunkOf(starts: readonly bigint[], key: bigint): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((starts[middle] as bigint) <= key) low = middle;
    else high = middle - 1;
  }
  return low;
}
