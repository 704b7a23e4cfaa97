import { COPY_CHUNK_ROWS, type DayChunk } from "../../model/day-chunks";
import { BlockMerge } from "./block-merge";
import { ChunkCutter } from "./chunk-cutter";
import { PairBlocks, PairCodec } from "./key-pairs";

/**
 * The most rows whose keys a copy keeps to cut its day into chunks (16 bytes
 * a row, 64 MB here); a larger day is recorded without chunks, and its
 * cleanup plans it by reading it again.
 */
export const MAX_CHUNKED_ROWS = 4_000_000;

/** Collects a day's (key, row hash) pairs as they stream, in any order, and cuts the day into key chunks. */
export interface KeyChunker {
  add(key: unknown, hash: bigint): void;
  /** The day's chunks in key order; undefined past the most rows kept (MAX_CHUNKED_ROWS). */
  chunks(): DayChunk[] | undefined;
}

/**
 * Cuts a day into chunks of `rowsPerChunk` rows by key, from each row's key
 * and 64-bit hash (never the rows): the copy reads the day in whatever order
 * the server finds cheapest. Once the stream ends, the keys are put in order,
 * every `rowsPerChunk`-th starts a chunk, and each row's hash goes to the
 * chunk its key falls in. The chunks are contiguous: each ends one key before
 * the next starts, so together they cover every key from the day's smallest
 * to its largest, and a row that arrived later anywhere in that span lands in
 * some chunk and changes its figures. Equal keys (which a primary key never
 * holds) stay in one chunk.
 *
 * Memory is the 16 bytes of each pair and little more: pairs fill blocks of a
 * fixed size, so a large day never copies what it holds to grow; each block
 * is sorted where it lies, and the chunks are cut while the sorted blocks are
 * merged, without a sorted copy of the day. Keys that fit in 53 bits (every
 * key up to 15 digits) are stored without a BigInt.
 */
export function createKeyChunker(
  unsigned: boolean,
  rowsPerChunk = COPY_CHUNK_ROWS,
  maxRows = MAX_CHUNKED_ROWS,
): KeyChunker {
  const pairs = new PairBlocks(new PairCodec(unsigned));
  let count = 0;
  return {
    add(key, hash) {
      if (count > maxRows) return;
      count += 1;
      if (count > maxRows) pairs.clear();
      else pairs.push(key, hash);
    },
    chunks() {
      if (count > maxRows) return undefined;
      pairs.sortEachBlock();
      return cutChunks(pairs, rowsPerChunk);
    },
  };
}

/**
 * Cuts, as createKeyChunker does, a day whose statement promises its rows in
 * key order (ORDER BY the key), as they stream: it keeps each chunk's figures,
 * never a row's key or hash. A key below the one before it breaks the
 * promise, and the day then has no chunks (its cleanup plans it by reading it
 * again), as past `maxRows`.
 */
export function createKeyOrderChunker(
  unsigned: boolean,
  rowsPerChunk = COPY_CHUNK_ROWS,
  maxRows = MAX_CHUNKED_ROWS,
): KeyChunker {
  const codec = new PairCodec(unsigned);
  const cutter = new ChunkCutter(codec, rowsPerChunk);
  const pair = new Uint32Array(4);
  const wide = new BigUint64Array(pair.buffer);
  let count = 0;
  let inOrder = true;
  return {
    add(key, hash) {
      if (!inOrder || count > maxRows) return;
      count += 1;
      if (count > maxRows) return;
      codec.write(pair, wide, 0, key, hash);
      inOrder = cutter.take(pair, 0);
    },
    chunks: () => (inOrder && count <= maxRows ? cutter.chunks() : undefined),
  };
}

/** Walks every pair in key order, merging the sorted blocks, and cuts the chunks on the way. */
function cutChunks(pairs: PairBlocks, rowsPerChunk: number): DayChunk[] {
  const cutter = new ChunkCutter(pairs.codec, rowsPerChunk);
  const merge = new BlockMerge(pairs);
  while (merge.advance()) cutter.take(merge.block, merge.word);
  return cutter.chunks();
}
