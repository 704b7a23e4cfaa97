import type { DayChunk } from "../../model/day-chunks";
import { HashSum } from "./hash-sum";
import type { PairCodec } from "./key-pairs";

/**
 * Cuts chunks from pairs taken in key order: a chunk starts at the first pair
 * and, once it holds `rowsPerChunk` rows, at the next pair whose key differs
 * from the last; each ends one key before the next starts, the last at the
 * last key taken.
 */
export class ChunkCutter {
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
