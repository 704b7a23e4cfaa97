import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../adapters/logging/json-logger";
import type { MigrationLedger } from "../../../ports/migration-ledger";
import type { Warehouse } from "../../../ports/warehouse";
import { cleanupFixture, fx } from "../../../testing/cleanup/file-fixture";
import { recopyTask, sourceDay, warehouseDay } from "../../../testing/cleanup/recopy-days";
import { type CopyDayDeps, recopyDay } from "../../copy/copy-day";
import { cleanDay } from "./clean-day";

// Which changed days are copied again and cleaned, and which refused: clean-day-recopy-changed-days.mysql.test.ts.

beforeAll(cleanupFixture.create);
afterAll(cleanupFixture.close);

/** Copy deps of our own, to put a failing warehouse or ledger under the re-copy. */
function copyDeps(overrides: Partial<CopyDayDeps> = {}): CopyDayDeps {
  return {
    source: fx.source,
    warehouse: async () => fx.warehouse,
    ledger: fx.ledger,
    logger: silentLogger,
    clock: () => new Date("2026-06-01T12:00:00Z"),
    timeZone: "UTC",
    destinations: { defaultDataset: "archive", allowProject: false },
    batchRows: 1,
    ...overrides,
  };
}

describe("a kill in the middle of a re-copy, then a retry", () => {
  it("killed right after the re-copy was recorded: the retry cleans against the new record", async () => {
    const table = await fx.ordersTable(["2024-08-10"]);
    await fx.copy(table, "2024-08-10");
    await fx.query(`UPDATE \`${table}\` SET amount = 0.01 WHERE id = 1`);
    await fx.query(
      `INSERT INTO \`${table}\` (created_at, status, amount) VALUES ('2024-08-10 09:00:00', 'x', 1)`,
    );
    const now = await sourceDay(table, "2024-08-10");
    const deps = fx.deps();
    const killed = fx.deps({
      recopy: async (task) => {
        await deps.recopy(task);
        throw new Error("killed");
      },
    });

    await expect(cleanDay(killed, recopyTask(table, "2024-08-10"))).rejects.toThrow("killed");
    expect(await sourceDay(table, "2024-08-10")).toEqual(now);
    expect(await warehouseDay(table, "2024-08-10")).toEqual(now);

    const report = await cleanDay(fx.deps(), recopyTask(table, "2024-08-10"));

    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 4 });
    expect(await warehouseDay(table, "2024-08-10")).toEqual(now);
    expect(await fx.warehouse.countRows({ dataset: "archive", table })).toBe(4);
    expect(await sourceDay(table, "2024-08-10")).toEqual([]);
  });

  it("killed while the warehouse was being written: the day is as copied before; the retry copies and cleans", async () => {
    const table = await fx.ordersTable(["2024-08-11"]);
    await fx.copy(table, "2024-08-11");
    const copied = await warehouseDay(table, "2024-08-11");
    await fx.query(`UPDATE \`${table}\` SET status = 'paid' WHERE id = 3`);
    await fx.query(
      `INSERT INTO \`${table}\` (created_at, status, amount) VALUES ('2024-08-11 09:00:00', 'x', 1)`,
    );
    const now = await sourceDay(table, "2024-08-11");
    // A warehouse that dies after two batches (of one row each) went in.
    const dying: Warehouse = {
      ...fx.warehouse,
      replaceDay(at, schema, batches, keyColumn, record) {
        async function* twoThenDie() {
          let n = 0;
          for await (const batch of batches) {
            yield batch;
            if (++n === 2) throw new Error("killed");
          }
        }
        return fx.warehouse.replaceDay(at, schema, twoThenDie(), keyColumn, record);
      },
    };
    const killed = fx.deps({
      recopy: (task) => recopyDay(copyDeps({ warehouse: async () => dying }), task),
    });

    await expect(cleanDay(killed, recopyTask(table, "2024-08-11"))).rejects.toThrow("killed");
    expect(await warehouseDay(table, "2024-08-11")).toEqual(copied);
    expect(await sourceDay(table, "2024-08-11")).toEqual(now);

    const report = await cleanDay(fx.deps(), recopyTask(table, "2024-08-11"));

    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 4 });
    expect(await warehouseDay(table, "2024-08-11")).toEqual(now);
    expect(await fx.warehouse.countRows({ dataset: "archive", table })).toBe(4);
    expect(await sourceDay(table, "2024-08-11")).toEqual([]);
  });

  it("killed after the warehouse committed, before the record (content changed, same count): the retry cleans", async () => {
    const table = await fx.ordersTable(["2024-08-12"]);
    await fx.copy(table, "2024-08-12");
    await fx.query(`UPDATE \`${table}\` SET status = 'paid' WHERE id = 2`);
    const now = await sourceDay(table, "2024-08-12");
    const ledger: MigrationLedger = {
      ...fx.ledger,
      recordCopiedDay: async () => {
        throw new Error("killed");
      },
    };
    const killed = fx.deps({ recopy: (task) => recopyDay(copyDeps({ ledger }), task) });

    await expect(cleanDay(killed, recopyTask(table, "2024-08-12"))).rejects.toThrow("killed");
    expect(await warehouseDay(table, "2024-08-12")).toEqual(now);

    const report = await cleanDay(fx.deps(), recopyTask(table, "2024-08-12"));

    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 3 });
    expect(await warehouseDay(table, "2024-08-12")).toEqual(now);
    expect(await fx.warehouse.countRows({ dataset: "archive", table })).toBe(3);
  });

  // After a kill between the warehouse commit and the new record, the warehouse
  // holds more rows than the old record says ("warehouse"): the re-copy settles it.
  it("killed after the warehouse committed, before the record (a row added): the retry cleans", async () => {
    const table = await fx.ordersTable(["2024-08-13"]);
    await fx.copy(table, "2024-08-13");
    await fx.query(
      `INSERT INTO \`${table}\` (created_at, status, amount) VALUES ('2024-08-13 09:00:00', 'x', 1)`,
    );
    const now = await sourceDay(table, "2024-08-13");
    const ledger: MigrationLedger = {
      ...fx.ledger,
      recordCopiedDay: async () => {
        throw new Error("killed");
      },
    };
    const killed = fx.deps({ recopy: (task) => recopyDay(copyDeps({ ledger }), task) });

    await expect(cleanDay(killed, recopyTask(table, "2024-08-13"))).rejects.toThrow("killed");
    expect(await warehouseDay(table, "2024-08-13")).toEqual(now);

    const outcome = await cleanDay(fx.deps(), recopyTask(table, "2024-08-13")).then(
      (report) => report.outcome,
      (error: unknown) => error,
    );

    expect(outcome).toBe("cleaned");
    expect(await warehouseDay(table, "2024-08-13")).toEqual(now);
    expect(await sourceDay(table, "2024-08-13")).toEqual([]);
  });
});
