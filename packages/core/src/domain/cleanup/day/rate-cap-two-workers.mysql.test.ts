import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisRateCap } from "../../../adapters/redis/redis-rate-cap";
import type { DayDeleter } from "../../../ports/day-deleter";
import type { Warehouse } from "../../../ports/warehouse";
import { cleanupFixture, fx } from "../../../testing/cleanup/file-fixture";
import { cleanTask } from "../../../testing/cleanup-fixture";
import { copyDay } from "../../copy/copy-day";
import { cleanDay } from "./clean-day";

// The table-wide rate cap as production enforces it: two workers at once, one Redis, real time.

beforeAll(cleanupFixture.create);
afterAll(cleanupFixture.close);

const CAP = 600;
const DAYS = ["2024-05-01", "2024-05-02", "2024-05-03", "2024-05-04"];

/** The rate over a run (rows over the span from the first unit's start to the last unit's share of time) and its busiest second. */
function measure(units: readonly { at: number; rows: number }[]) {
  const sorted = [...units].sort((a, b) => a.at - b.at);
  const first = sorted[0]?.at ?? 0;
  const last = sorted.at(-1) ?? { at: first, rows: 0 };
  const rows = sorted.reduce((sum, unit) => sum + unit.rows, 0);
  const seconds = (last.at - first) / 1000 + last.rows / CAP;
  const busiest = Math.max(
    ...sorted.map(({ at }) =>
      sorted.filter((u) => u.at >= at && u.at < at + 1000).reduce((s, u) => s + u.rows, 0),
    ),
  );
  return { rows, average: rows / seconds, busiest };
}

describe("the rate cap across two workers", () => {
  it("holds a copy and a cleanup of one table, by two workers at once, to the cap: within 1.1x over the run, no second above 1.5x", async () => {
    const table = await fx.keyedTable(DAYS, 300);
    const rateCap = createRedisRateCap(fx.redis, { prefix: `${fx.prefix}:rate` });

    // Rows copied are counted as the warehouse takes them (the source reads a little ahead of the cap).
    const copied: { at: number; rows: number }[] = [];
    const warehouse = await fx.copyDeps.warehouse();
    const counted: Warehouse = {
      ...warehouse,
      replaceDay(at, schema, batches, ...rest) {
        async function* timed() {
          for await (const batch of batches) {
            copied.push({ at: performance.now(), rows: batch.length });
            yield batch;
          }
        }
        return warehouse.replaceDay(at, schema, timed(), ...rest);
      },
    };
    const copyDeps = {
      ...fx.copyDeps,
      warehouse: async () => counted,
      rateCap,
      sleep: (ms: number) => sleep(ms),
    };
    const copyTask = (day: string) =>
      ({
        kind: "copy",
        table,
        destination: table,
        filterColumn: "created_at",
        day,
        maxRowsPerSecond: CAP,
      }) as const;
    const worker = async (days: readonly string[], work: (day: string) => Promise<unknown>) => {
      for (const day of days) await work(day);
    };
    await Promise.all([
      worker(DAYS.slice(0, 2), (day) => copyDay(copyDeps, copyTask(day))),
      worker(DAYS.slice(2), (day) => copyDay(copyDeps, copyTask(day))),
    ]);

    const deleted: { at: number; rows: number }[] = [];
    const deleter: DayDeleter = {
      ...fx.deleter,
      async deleteChunk(...args) {
        const at = performance.now();
        const outcome = await fx.deleter.deleteChunk(...args);
        if (outcome.kind === "deleted") deleted.push({ at, rows: outcome.rows });
        return outcome;
      },
    };
    const deps = fx.deps({ deleter, rateCap, sleep: (ms) => sleep(ms) });
    const clean = (day: string) => cleanDay(deps, { ...cleanTask(table, day), maxRowsPerSecond: CAP });
    await Promise.all([worker(DAYS.slice(0, 2), clean), worker(DAYS.slice(2), clean)]);

    expect(await fx.ids(table)).toEqual([]);
    for (const units of [copied, deleted]) {
      const { rows, average, busiest } = measure(units);
      console.info(
        `rate cap ${CAP} rows/s: ${rows} rows, ${Math.round(average)} rows/s over the run, busiest second ${busiest}`,
      );
      expect(rows).toBe(1200);
      expect(Math.max(...units.map((u) => u.rows))).toBeLessThanOrEqual(CAP * 0.4);
      expect(average).toBeLessThanOrEqual(CAP * 1.1);
      expect(average).toBeGreaterThanOrEqual(CAP / 1.1);
      expect(busiest).toBeLessThanOrEqual(CAP * 1.5);
    }
  });
});
