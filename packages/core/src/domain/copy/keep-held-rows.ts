import { RefusalError } from "../../errors";
import { integerKeyColumn, type Row, type TableSchema } from "../../model/table-schema";
import type { WarehouseDay } from "../../model/warehouse-day";
import type { Warehouse } from "../../ports/warehouse";

/**
 * Keys of the warehouse's day read at a time. What a re-copy holds of them,
 * whatever the day's size: a day of millions of keys held whole would not fit
 * the task handler's memory.
 */
export const HELD_KEYS_PAGE = 10_000;

/**
 * Wraps the batches of a re-copy so that the replace fails, before the
 * warehouse commits it, unless the new rows keep every key the warehouse holds
 * of the day now: a row's content may change, its key may not leave. A row
 * that left the source may have its only copy in the warehouse; a re-copy
 * never removes it. Without a single integer key, where an update and a
 * delete-plus-insert cannot be told apart, the warehouse's own rule is all
 * there is: no replace leaves a day with fewer rows (Warehouse.replaceDay).
 *
 * The batches must come in ascending key order (streamDay `inKeyOrder`): the
 * warehouse lists its keys in that order too, a page at a time
 * (Warehouse.dayKeys), and the two are walked side by side, as a merge,
 * so memory holds one batch and one page of keys, never the day's keys.
 */
export function keepHeldRows(
  warehouse: Warehouse,
  at: WarehouseDay,
  schema: TableSchema,
  batches: AsyncIterable<readonly Row[]>,
): AsyncIterable<readonly Row[]> {
  const key = integerKeyColumn(schema);
  if (!key) return batches;
  const label = `${schema.name} ${at.day}`;
  // Read lazily: the first page is asked for with the first batch, inside the replace.
  const held = () => new HeldKeyCursor(warehouse.dayKeys(at, key.name, HELD_KEYS_PAGE), label);
  return { [Symbol.asyncIterator]: () => keepKeys(held(), schema.columns.indexOf(key), batches, label) };
}

async function* keepKeys(
  held: HeldKeyCursor,
  index: number,
  batches: AsyncIterable<readonly Row[]>,
  label: string,
): AsyncGenerator<readonly Row[]> {
  let missing = 0;
  let last: bigint | undefined;
  try {
    for await (const batch of batches) {
      for (const row of batch) {
        const key = BigInt(String(row[index]));
        if (last !== undefined && key <= last) {
          throw new Error(
            `${label}: the source streamed key ${key} after ${last}, not in ascending key order`,
          );
        }
        last = key;
        // Every held key below this one has no row left in the source.
        for (;;) {
          if (held.needsPage) await held.fill();
          const head = held.head;
          if (head === undefined || head > key) break;
          if (head < key) missing += 1;
          held.advance();
          if (head === key) break;
        }
      }
      yield batch;
    }
    for (;;) {
      if (held.needsPage) await held.fill();
      if (held.head === undefined) break;
      missing += 1;
      held.advance();
    }
  } finally {
    await held.close();
  }
  if (missing > 0) {
    throw new RefusalError(
      `${label}: ${missing} ${missing === 1 ? "row" : "rows"} of the warehouse copy (by key) ` +
        `${missing === 1 ? "is" : "are"} no longer in the source's day; re-copying would remove from the ` +
        "warehouse rows that have left the source (the warehouse may hold their only copy), so the copy and " +
        "the source's rows are kept as they are",
      { reason: "changed" },
    );
  }
}

/**
 * The warehouse's keys of a day (Warehouse.dayKeys) walked in ascending
 * order, one distinct key at a time, holding only the page in hand: the next
 * page is read when this one is used up, never before. `head` is sync while
 * the page in hand has a key left, so a re-copy awaits once per page, not once
 * per row. A key listed twice counts once; a page out of order is a bug of the
 * warehouse adapter and stops the walk (comparing out of order could only
 * refuse rows that are there, but would say so misleadingly).
 */
class HeldKeyCursor {
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
