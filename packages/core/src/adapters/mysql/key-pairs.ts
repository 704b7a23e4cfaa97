import type { HashSum } from "./hash-sum";

// A day's (key, row hash) pairs kept in typed arrays, 16 bytes each, and sorted by key where they lie.

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
export class PairCodec {
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
export class PairBlocks {
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
