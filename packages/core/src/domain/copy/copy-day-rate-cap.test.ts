import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RATE_CAP_CATCH_UP_MS } from "../../ports/rate-cap";
import type { SourceDatabase, StreamDayOptions } from "../../ports/source-database";
import { createMemoryRateCap } from "../../testing/fakes/memory-rate-cap";
import {
  copyTask,
  createMemoryFixture,
  eventsSchema,
  type MemoryFixture,
  rowsOnDays,
} from "../../testing/memory-fixture";
import { copyDay } from "./copy-day";

let fx: MemoryFixture;
beforeEach(async () => {
  fx = await createMemoryFixture();
});
afterEach(async () => {
  await fx.close();
});

describe("copyDay under the table's rate cap", () => {
  it("reads in batches of at most 0.4 s of rows, spaced at the cap, and copies every row", async () => {
    fx.source.createTable(eventsSchema("events"), rowsOnDays(["2024-01-01"], 40));
    let now = 0;
    const batches: { at: number; rows: number }[] = [];
    const asked: (StreamDayOptions | undefined)[] = [];
    const source: SourceDatabase = {
      ...fx.source,
      streamDay(schema, column, day, batchRows, options) {
        asked.push(options);
        const stream = fx.source.streamDay(schema, column, day, batchRows, options);
        return {
          ...stream,
          batches: (async function* () {
            for await (const batch of stream.batches) {
              batches.push({ at: now, rows: batch.length });
              yield batch;
            }
          })(),
        };
      },
    };
    const deps = fx.copyDeps({
      source,
      rateCap: createMemoryRateCap(() => now),
      sleep: async (ms) => {
        now += ms;
      },
    });

    const record = await copyDay(deps, { ...copyTask("events", "2024-01-01"), maxRowsPerSecond: 8 });

    expect(record.figures.rows).toBe(40);
    // Paced: the source reads no further ahead than the cap lets batches through.
    expect(asked).toEqual([{ paced: true }]);
    expect(Math.max(...batches.map((b) => b.rows))).toBeLessThanOrEqual(3);
    // 40 rows at 8 a second in batches of 3: the last batch's turn is 4.875 s past the first's, and it may
    // start at most the catch-up allowance early.
    expect(now).toBeGreaterThanOrEqual(4_875 - RATE_CAP_CATCH_UP_MS);
  });
});
