import { describe, expect, it } from "vitest";
import { RefusalError } from "../../errors";
import type { Row } from "../../model/table-schema";
import type { Warehouse } from "../../ports/warehouse";
import { event, eventsSchema } from "../../testing/memory-fixture";
import { dayOf } from "../../testing/orders-fixture";
import { HELD_KEYS_PAGE, keepHeldRows } from "./keep-held-rows";

// keepHeldRows on its own, against a warehouse that lists its keys a page at a
// time and counts what it has handed out, and a source that counts the rows it
// has streamed: the re-copy's memory is what it has read of the warehouse ahead
// of the source. The re-copy as a whole: copy-day.test.ts and the cleanup's
// clean-day-recopy*.test.ts.

const DAY = "2024-03-10";
const at = dayOf({ dataset: "archive", table: "events" }, DAY);
const schema = eventsSchema("events");

/** A day's rows with these keys, in batches of `size`, counting in `read.rows` what it has streamed. */
function source(keys: readonly (number | string)[], size: number) {
  const read = { rows: 0 };
  async function* batches(): AsyncGenerator<readonly Row[]> {
    for (let start = 0; start < keys.length; start += size) {
      const batch = keys.slice(start, start + size).map((key) => event(key, `${DAY} 10:00:00`));
      read.rows += batch.length;
      yield batch;
    }
  }
  return { read, batches: batches() };
}

/**
 * A warehouse holding `keys` (ascending), listing them `pageSize` at a time
 * (at most the pageKeys asked), each page made when asked for. `ahead` is the
 * most keys it had handed out beyond the rows `read` had streamed when it
 * handed out a page: what a re-copy can be holding of the warehouse's keys.
 */
function warehouse(keys: readonly (number | string)[], read: { rows: number }, pageSize = 1_000) {
  const seen = { pages: 0, handed: 0, ahead: 0, pageKeys: 0, returned: false };
  async function* dayKeys(_at: unknown, _key: string, pageKeys: number): AsyncGenerator<readonly string[]> {
    seen.pageKeys = pageKeys;
    const size = Math.min(pageSize, pageKeys);
    try {
      for (let start = 0; start < keys.length; start += size) {
        const page = keys.slice(start, start + size).map(String);
        seen.pages += 1;
        seen.handed += page.length;
        seen.ahead = Math.max(seen.ahead, seen.handed - read.rows);
        yield page;
      }
    } finally {
      seen.returned = true;
    }
  }
  return { seen, warehouse: { dayKeys } as unknown as Warehouse };
}

/** Reads every batch keepHeldRows passes on; its refusal (or other failure), if any. */
async function drain(batches: AsyncIterable<readonly Row[]>): Promise<{ rows: Row[]; error?: unknown }> {
  const rows: Row[] = [];
  try {
    for await (const batch of batches) rows.push(...batch);
    return { rows };
  } catch (error) {
    return { rows, error };
  }
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("keepHeldRows", () => {
  it("compares a day of 100 000 rows holding at most one page of the warehouse's keys", async () => {
    const keys = range(1, 100_000);
    const { read, batches } = source(keys, 1_000);
    const { seen, warehouse: held } = warehouse(keys, read, 10_000);

    const { rows, error } = await drain(keepHeldRows(held, at, schema, batches));

    expect(error).toBeUndefined();
    expect(rows).toHaveLength(100_000);
    expect(seen.pageKeys).toBeLessThanOrEqual(HELD_KEYS_PAGE);
    // Never more than a page read beyond the source: the pages came as the source reached them.
    expect(seen.pages).toBe(10);
    expect(seen.ahead).toBeLessThanOrEqual(10_000);
  });

  it("refuses, counting each missing key once, when held keys left the source anywhere", async () => {
    // Pages of 3 put 4 at a page's end and again at the next one's start; 1, 4, 7 and 10 left the source.
    const heldKeys = [1, 2, 3, 4, 4, 5, 6, 7, 8, 9, 10];
    const { read, batches } = source([2, 3, 5, 6, 8, 9, 11], 2);
    const { seen, warehouse: held } = warehouse(heldKeys, read, 3);

    const { rows, error } = await drain(keepHeldRows(held, at, schema, batches));

    expect(rows).toHaveLength(7);
    expect(error).toBeInstanceOf(RefusalError);
    expect(error).toMatchObject({ reason: "changed" });
    expect(String((error as Error).message)).toMatch(/^events 2024-03-10: 4 rows of the warehouse copy/);
    expect(seen.returned).toBe(true);
  });

  it("passes rows that keep every held key, changed or not, with new keys between and beyond", async () => {
    const { read, batches } = source(
      ["1", "5", "9007199254740993", "18446744073709551614", "18446744073709551615"],
      2,
    );
    const { warehouse: held } = warehouse(["5", "18446744073709551614"], read, 1);
    const { rows, error } = await drain(keepHeldRows(held, at, schema, batches));
    expect(error).toBeUndefined();
    expect(rows.map((row) => row[0])).toEqual([
      "1",
      "5",
      "9007199254740993",
      "18446744073709551614",
      "18446744073709551615",
    ]);
  });

  it("fails, not refuses, when the source does not stream in key order", async () => {
    const { read, batches } = source([1, 3, 2], 2);
    const { warehouse: held } = warehouse([1, 2, 3], read);
    const { error } = await drain(keepHeldRows(held, at, schema, batches));
    expect(error).not.toBeInstanceOf(RefusalError);
    expect(String(error)).toMatch(/events 2024-03-10: the source streamed key 2 after 3/);
  });

  it("fails, not refuses, when the warehouse lists its keys out of order", async () => {
    const { read, batches } = source([1, 2, 3], 3);
    const { warehouse: held } = warehouse([1, 3, 2], read, 2);
    const { error } = await drain(keepHeldRows(held, at, schema, batches));
    expect(error).not.toBeInstanceOf(RefusalError);
    expect(String(error)).toMatch(/the warehouse listed key 2 after 3/);
  });

  it("lets go of the warehouse's listing when the copy stops reading", async () => {
    const keys = range(1, 5_000);
    const { read, batches } = source(keys, 100);
    const { seen, warehouse: held } = warehouse(keys, read, 1_000);
    for await (const _ of keepHeldRows(held, at, schema, batches)) break;
    expect(seen.pages).toBe(1);
    expect(seen.returned).toBe(true);
  });

  it("passes the batches of a table without one integer key as they are, reading no keys", async () => {
    const { read, batches } = source([1, 2], 2);
    const { seen, warehouse: held } = warehouse([7], read);
    const plain = eventsSchema("events", { keyed: false });
    expect(keepHeldRows(held, at, plain, batches)).toBe(batches);
    expect(seen.pages).toBe(0);
  });
});
