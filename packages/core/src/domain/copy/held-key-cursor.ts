/**
 * The warehouse's keys of a day (Warehouse.dayKeys) walked in ascending
 * order, one distinct key at a time, holding only the page in hand: the next
 * page is read when this one is used up, never before. `head` is sync while
 * the page in hand has a key left, so a re-copy awaits once per page, not once
 * per row. A key listed twice counts once; a page out of order is a bug of the
 * warehouse adapter and stops the walk (comparing out of order could only
 * refuse rows that are there, but would say so misleadingly).
 */
export class HeldKeyCursor {
  readonly #pages: AsyncIterator<readonly string[]>;
  readonly #label: string;
  #page: readonly string[] = [];
  #at = 0;
  #head: bigint | undefined;
  /** The last key that was `head`: a key equal to it is a repeat, a smaller one out of order. */
  #previous: bigint | undefined;
  #ended = false;

  constructor(pages: AsyncIterable<readonly string[]>, label: string) {
    this.#pages = pages[Symbol.asyncIterator]();
    this.#label = label;
  }

  /** The smallest key not yet passed; undefined when none is left or `needsPage` (then `fill` first). */
  get head(): bigint | undefined {
    return this.#head;
  }

  /** Whether the page in hand is used up and another may follow: `fill` before reading `head`. */
  get needsPage(): boolean {
    return this.#head === undefined && !this.#ended;
  }

  /** Reads pages until a key is in hand or the listing ends. */
  async fill(): Promise<void> {
    while (this.needsPage) {
      if (this.#at < this.#page.length) {
        this.advance();
        continue;
      }
      const next = await this.#pages.next();
      if (next.done) {
        this.#ended = true;
        this.#page = [];
      } else {
        this.#page = next.value;
      }
      this.#at = 0;
    }
  }

  /** Passes `head`: the next distinct key of the page in hand becomes `head` (or `needsPage`). */
  advance(): void {
    const passed = this.#previous;
    this.#head = undefined;
    while (this.#at < this.#page.length) {
      const key = BigInt(this.#page[this.#at] as string);
      this.#at += 1;
      if (passed !== undefined && key < passed) {
        throw new Error(
          `${this.#label}: the warehouse listed key ${key} after ${passed}; its keys must come in ascending order`,
        );
      }
      if (passed !== undefined && key === passed) continue;
      this.#head = key;
      this.#previous = key;
      return;
    }
  }

  /** Lets go of the listing early (the copy failed): the warehouse reads no further page. */
  async close(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    this.#head = undefined;
    this.#page = [];
    await this.#pages.return?.();
  }
}
