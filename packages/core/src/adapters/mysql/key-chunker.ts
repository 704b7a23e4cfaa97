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

/** Rows in a full block: 1 MiB of pairs. The first block starts small and doubles up to it. */
const BLOCK_ROWS = 65_536;
const FIRST_BLOCK_ROWS = 1_024;
const TWO_TO_32 = 4_294_967_296;
/** Which of a 64-bit slot's two 32-bit halves is the low one, in this machine's byte order. */
const LOW = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1 ? 0 : 1;
const HIGH = 1 - LOW;

/**
 * How a (key, hash) pair is kept: four 32-bit words, the key's two halves,
 * then the hash's (a 64-bit view of the same memory writes the hash, and keys
 * too long for a double, without splitting a BigInt). A key is kept as its
 * 64-bit two's complement; `high` flips a signed key's sign bit, so that
 * comparing the halves as unsigned numbers puts keys in order.
 */
class PairCodec {
  /** 2^31 for a signed key, flipped in its high half so that keys compare as unsigned numbers; else 0. */
  readonly signBit: number;

  constructor(readonly unsigned: boolean) {
    this.signBit = unsigned ? 0 : 0x8000_0000;
  }

  /** Writes the pair at `word` of `words`; `wide` is a 64-bit view of the same memory. */
  write(words: Uint32Array, wide: BigUint64Array, word: number, key: unknown, hash: bigint): void {
    const small = typeof key === "number" ? key : typeof key === "string" ? shortDecimal(key) : undefined;
    if (small !== undefined && Number.isSafeInteger(small)) {
      if (this.unsigned && small < 0) throw keyError(key, "a negative key in an unsigned column");
      const high = Math.floor(small / TWO_TO_32);
      words[word + HIGH] = high;
      words[word + LOW] = small - high * TWO_TO_32;
    } else {
      wide[word / 2] = this.bigKey(key);
    }
    wide[word / 2 + 1] = hash;
  }

  /** The key's high half, made comparable as an unsigned number. */
  high(words: Uint32Array, word: number): number {
    return ((words[word + HIGH] as number) ^ this.signBit) >>> 0;
  }

  low(words: Uint32Array, word: number): number {
    return words[word + LOW] as number;
  }

  /** Orders two keys: negative, zero or positive. */
  compare(a: Uint32Array, aWord: number, b: Uint32Array, bWord: number): number {
    return this.high(a, aWord) - this.high(b, bWord) || this.low(a, aWord) - this.low(b, bWord);
  }

  /** The key at `word` as a BigInt, signed or not as the column is. */
  keyAt(words: Uint32Array, word: number): bigint {
    const bits = (BigInt(words[word + HIGH] as number) << 32n) | BigInt(words[word + LOW] as number);
    return this.unsigned ? bits : BigInt.asIntN(64, bits);
  }

  /** Adds the hash at `word` to `sum`. */
  addHash(sum: HashSum, words: Uint32Array, word: number): void {
    sum.add(words[word + 2 + LOW] as number, words[word + 2 + HIGH] as number);
  }

  private bigKey(key: unknown): bigint {
    let value: bigint;
    try {
      value = BigInt(key as string);
    } catch {
      throw keyError(key, "not an integer");
    }
    const fits = this.unsigned ? value === BigInt.asUintN(64, value) : value === BigInt.asIntN(64, value);
    if (!fits) throw keyError(key, `outside ${this.unsigned ? "unsigned" : "signed"} 64 bits`);
    return value;
  }
}

/** A day's pairs (see PairCodec) in blocks that fill one after the other and are never copied once full. */
class PairBlocks {
  readonly blocks: Uint32Array[] = [];
  /** Pairs in each block. */
  readonly filled: number[] = [];
  /** Whether each block's keys already rise (as when the day streams in key order): it needs no sorting. */
  readonly rising: boolean[] = [];
  private wide: BigUint64Array = new BigUint64Array(0);
  private spare: Uint32Array | undefined;

  constructor(readonly codec: PairCodec) {}

  push(key: unknown, hash: bigint): void {
    let at = this.blocks.length - 1;
    let block = this.blocks[at];
    let used = this.filled[at] ?? 0;
    if (block === undefined || used * 4 === block.length) {
      if (block !== undefined && block.length < BLOCK_ROWS * 4) {
        const grown = new Uint32Array(block.length * 2);
        grown.set(block);
        block = grown;
        this.blocks[at] = block;
      } else {
        block = new Uint32Array((at < 0 ? FIRST_BLOCK_ROWS : BLOCK_ROWS) * 4);
        at += 1;
        used = 0;
        this.blocks.push(block);
        this.filled.push(0);
        this.rising.push(true);
      }
      this.wide = new BigUint64Array(block.buffer);
    }
    const word = used * 4;
    this.codec.write(block, this.wide, word, key, hash);
    if (used > 0 && this.rising[at] && this.codec.compare(block, word - 4, block, word) > 0) {
      this.rising[at] = false;
    }
    this.filled[at] = used + 1;
  }

  clear(): void {
    this.blocks.length = 0;
    this.filled.length = 0;
    this.rising.length = 0;
    this.wide = new BigUint64Array(0);
    this.spare = undefined;
  }

  /** Sorts each block by key where it lies (least significant byte first), leaving rising blocks as they are. */
  sortEachBlock(): void {
    for (let at = 0; at < this.blocks.length; at++) {
      const block = this.blocks[at] as Uint32Array;
      if (this.rising[at]) continue;
      if (this.spare?.length !== block.length) this.spare = new Uint32Array(block.length);
      let from = block;
      let to = this.spare;
      const rows = this.filled[at] as number;
      for (let byte = 0; byte < 8; byte++) {
        if (scatterByByte(this.codec, from, to, rows, byte)) [from, to] = [to, from];
      }
      this.blocks[at] = from;
      this.spare = to;
      this.rising[at] = true;
    }
    this.spare = undefined;
  }
}

function keyError(key: unknown, why: string): RangeError {
  return new RangeError(`key chunk key must be a 64-bit integer, got ${String(key)}: ${why}`);
}

/** The value of plain decimal text of at most 15 digits (always exact in a double), else undefined. */
function shortDecimal(text: string): number | undefined {
  const negative = text.charCodeAt(0) === 45; // "-"
  const start = negative ? 1 : 0;
  if (text.length === start || text.length - start > 15) return undefined;
  let value = 0;
  for (let i = start; i < text.length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    value = value * 10 + digit;
  }
  return negative ? -value : value;
}

/**
 * One pass of a radix sort: moves the pairs of `from` into `to`, stably
 * ordered by the key's `byte`-th byte (0 the least significant). Returns
 * false, having moved nothing, when every key has the same byte there.
 */
function scatterByByte(
  codec: PairCodec,
  from: Uint32Array,
  to: Uint32Array,
  rows: number,
  byte: number,
): boolean {
  const shift = (byte & 3) * 8;
  const half = byte < 4 ? LOW : HIGH;
  const flip = byte < 4 ? 0 : codec.signBit;
  const counts = new Uint32Array(256);
  for (let word = half; word < rows * 4; word += 4) {
    const digit = (((from[word] as number) ^ flip) >>> shift) & 255;
    counts[digit] = (counts[digit] as number) + 1;
  }
  const firstDigit = (((from[half] as number) ^ flip) >>> shift) & 255;
  if (counts[firstDigit] === rows) return false;
  let next = 0;
  for (let value = 0; value < 256; value++) {
    const here = counts[value] as number;
    counts[value] = next;
    next += here;
  }
  for (let word = 0; word < rows * 4; word += 4) {
    const digit = (((from[word + half] as number) ^ flip) >>> shift) & 255;
    const target = (counts[digit] as number) * 4;
    counts[digit] = target / 4 + 1;
    to[target] = from[word] as number;
    to[target + 1] = from[word + 1] as number;
    to[target + 2] = from[word + 2] as number;
    to[target + 3] = from[word + 3] as number;
  }
  return true;
}

/** Walks every pair in key order, merging the sorted blocks, and cuts the chunks on the way. */
function cutChunks(pairs: PairBlocks, rowsPerChunk: number): DayChunk[] {
  const cutter = new ChunkCutter(pairs.codec, rowsPerChunk);
  const merge = new BlockMerge(pairs);
  while (merge.advance()) cutter.take(merge.block, merge.word);
  return cutter.chunks();
}

/**
 * Cuts chunks from pairs taken in key order: a chunk starts at the first pair
 * and, once it holds `rowsPerChunk` rows, at the next pair whose key differs
 * from the last; each ends one key before the next starts, the last at the
 * last key taken.
 */
class ChunkCutter {
  private readonly done: DayChunk[] = [];
  private first: bigint | undefined;
  private rows = 0;
  private readonly sum = new HashSum();
  /** The last key taken, in its two words. */
  private readonly previous = new Uint32Array(2);

  constructor(
    private readonly codec: PairCodec,
    private readonly rowsPerChunk: number,
  ) {}

  /** Takes the pair at `word` of `words`; refuses it (false) when its key is below the last one taken. */
  take(words: Uint32Array, word: number): boolean {
    if (this.first === undefined) {
      this.first = this.codec.keyAt(words, word);
    } else {
      const order = this.codec.compare(this.previous, 0, words, word);
      if (order > 0) return false;
      if (this.rows >= this.rowsPerChunk && order !== 0) {
        const key = this.codec.keyAt(words, word);
        const last = (key - 1n).toString();
        this.done.push({ first: this.first.toString(), last, rows: this.rows, fingerprint: this.sum.text() });
        this.sum.reset();
        this.first = key;
        this.rows = 0;
      }
    }
    this.rows += 1;
    this.codec.addHash(this.sum, words, word);
    this.previous[0] = words[word] as number;
    this.previous[1] = words[word + 1] as number;
    return true;
  }

  /** The chunks of the pairs taken so far. */
  chunks(): DayChunk[] {
    if (this.first === undefined) return [];
    const last = this.codec.keyAt(this.previous, 0).toString();
    return [
      ...this.done,
      { first: this.first.toString(), last, rows: this.rows, fingerprint: this.sum.text() },
    ];
  }
}

/** The exact sum of 64-bit hashes given as 32-bit halves, kept in doubles and folded into a BigInt before they could round. */
class HashSum {
  private low = 0;
  private high = 0;
  private added = 0;
  private total = 0n;

  add(low: number, high: number): void {
    this.low += low;
    this.high += high;
    this.added += 1;
    if (this.added === 1 << 20) this.fold();
  }

  /** The sum as decimal text. */
  text(): string {
    this.fold();
    return this.total.toString();
  }

  reset(): void {
    this.fold();
    this.total = 0n;
  }

  private fold(): void {
    this.total += (BigInt(this.high) << 32n) + BigInt(this.low);
    this.low = 0;
    this.high = 0;
    this.added = 0;
  }
}

/** Walks the pairs of several key-sorted blocks in key order (a min-heap of the blocks' next pairs). */
class BlockMerge {
  private readonly heap: number[] = [];
  private readonly next: number[];

  constructor(private readonly pairs: PairBlocks) {
    this.next = pairs.blocks.map(() => 0);
    for (let at = 0; at < pairs.blocks.length; at++) {
      if ((pairs.filled[at] as number) > 0) this.insert(at);
    }
  }

  /** The pair `advance` moved to: its block, and its first word there. */
  block: Uint32Array = new Uint32Array(0);
  word = 0;

  /** Moves to the next pair in key order; false once every pair has been handed out. */
  advance(): boolean {
    const at = this.heap[0];
    if (at === undefined) return false;
    const row = this.next[at] as number;
    this.block = this.pairs.blocks[at] as Uint32Array;
    this.word = row * 4;
    this.next[at] = row + 1;
    if (row + 1 === this.pairs.filled[at]) {
      const tail = this.heap.pop() as number;
      if (this.heap.length > 0) this.heap[0] = tail;
    }
    if (this.heap.length > 0) this.siftDown(0);
    return true;
  }

  private before(a: number, b: number): boolean {
    const { blocks } = this.pairs;
    const aWord = (this.next[a] as number) * 4;
    const bWord = (this.next[b] as number) * 4;
    return this.pairs.codec.compare(blocks[a] as Uint32Array, aWord, blocks[b] as Uint32Array, bWord) < 0;
  }

  private insert(at: number): void {
    const heap = this.heap;
    heap.push(at);
    let child = heap.length - 1;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (!this.before(heap[child] as number, heap[parent] as number)) break;
      [heap[child], heap[parent]] = [heap[parent] as number, heap[child] as number];
      child = parent;
    }
  }

  private siftDown(from: number): void {
    const heap = this.heap;
    let parent = from;
    for (;;) {
      const left = parent * 2 + 1;
      const right = left + 1;
      let least = parent;
      if (left < heap.length && this.before(heap[left] as number, heap[least] as number)) least = left;
      if (right < heap.length && this.before(heap[right] as number, heap[least] as number)) least = right;
      if (least === parent) return;
      [heap[parent], heap[least]] = [heap[least] as number, heap[parent] as number];
      parent = least;
    }
  }
}
