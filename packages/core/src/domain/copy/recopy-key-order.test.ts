import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SourceDatabase, StreamDayOptions } from "../../ports/source-database";
import type { Warehouse } from "../../ports/warehouse";
import {
  copyTask,
  createMemoryFixture,
  event,
  eventsSchema,
  type MemoryFixture,
} from "../../testing/memory-fixture";
import { copyDay, recopyDay } from "./copy-day";
import { HELD_KEYS_PAGE } from "./keep-held-rows";

// How recopyDay reads for keepHeldRows: the source in key order, the
// warehouse's keys a page at a time; a copy asks the source for no order.

let fx: MemoryFixture;
beforeEach(async () => {
  fx = await createMemoryFixture();
});
afterEach(async () => {
  await fx.close();
});

const DAY = "2024-03-10";

/** The fixture's source, recording the options of each streamDay. */
function recording(asked: (StreamDayOptions | undefined)[]): SourceDatabase {
  return {
    ...fx.source,
    streamDay(schema, column, day, batchRows, options) {
      asked.push(options);
      return fx.source.streamDay(schema, column, day, batchRows, options);
    },
  };
}

/** The fixture's warehouse, recording the page size of each dayKeys. */
function paging(pageKeys: number[]): Warehouse {
  return {
    ...fx.warehouse,
    dayKeys(at, keyColumn, size) {
      pageKeys.push(size);
      return fx.warehouse.dayKeys(at, keyColumn, size);
    },
  };
}

describe("recopyDay reading for keepHeldRows", () => {
  it("asks the source for key order and the warehouse for pages; the copy asks for neither", async () => {
    // Written, and timed, out of key order: 30 first, 4 last.
    fx.source.createTable(eventsSchema("events"), [
      event(30, `${DAY} 01:00:00`),
      event(12, `${DAY} 02:00:00`),
      event(4, `${DAY} 03:00:00`),
    ]);
    const asked: (StreamDayOptions | undefined)[] = [];
    const pageKeys: number[] = [];
    const deps = fx.copyDeps({ source: recording(asked), warehouse: async () => paging(pageKeys) });
    await copyDay(deps, copyTask("events", DAY));
    fx.source.insertRows("events", [event(7, `${DAY} 04:00:00`)]);

    const again = await recopyDay({ ...deps, batchRows: 1 }, copyTask("events", DAY));

    expect(asked).toEqual([{}, { inKeyOrder: true }]);
    expect(pageKeys).toEqual([HELD_KEYS_PAGE]);
    expect(again.figures).toMatchObject({ rows: 4, key: { min: "4", max: "30" } });
  });
});
