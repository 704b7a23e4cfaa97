import type { PairBlocks } from "./key-pairs";

/** Walks the pairs of several key-sorted blocks in key order (a min-heap of the blocks' next pairs). */
export class BlockMerge {
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
