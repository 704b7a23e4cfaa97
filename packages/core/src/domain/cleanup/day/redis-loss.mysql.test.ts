import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDuckDbWarehouse } from "../../../adapters/duckdb/duckdb-warehouse";
import { readDuckDbDay } from "../../../adapters/duckdb/testing/read-day";
import { cleanupKeys } from "../../../adapters/redis/redis-cleanup-state";
import { copiedDaysKey, migratedDaysKey } from "../../../adapters/redis/redis-migration-ledger";
import { RefusalError } from "../../../errors";
import type { Warehouse } from "../../../ports/warehouse";
import {
  type CleanupFixture,
  cleanTask,
  createCleanupFixture,
  failAfter,
} from "../../../testing/cleanup-fixture";
import { dropWarehouseTable } from "../../../testing/warehouse-faults";
import { copyDay } from "../../copy/copy-day";
import { rebuildAllMigratedDays, rebuildMigratedDays } from "../../records/durable-day-record";
import { cleanDay } from "./clean-day";

let fx: CleanupFixture;

beforeAll(async () => {
  fx = await createCleanupFixture();
});

afterAll(async () => {
  await fx?.close();
});

/** Everything Redis knew of the table's day: its copy record, its place in mig_<table>, its cleanup state. */
async function forget(table: string, day: string): Promise<void> {
  const cleanup = cleanupKeys(fx.prefix, table, day);
  await fx.redis.del(
    migratedDaysKey(table),
    copiedDaysKey(table),
    cleanup.day,
    cleanup.lease,
    cleanup.cleaned,
  );
}

/** A table with one day of 5 rows, copied; its cleanup deletes 2 of 3 chunks and dies; then Redis forgets. */
async function partCleanedDay(options: { readonly copiedBefore?: "durable-record" } = {}) {
  const table = await fx.keyedTable(["2024-10-01"], 5);
  if (options.copiedBefore) {
    // A copy made by a version without the durable record: the warehouse holds the day, nothing records it.
    const warehouse: Warehouse = {
      ...fx.warehouse,
      async replaceDay(at, schema, batches, keyColumn, record) {
        const written = await fx.warehouse.replaceDay(at, schema, batches, keyColumn);
        await record?.(written);
        return written;
      },
    };
    await copyDay(
      { ...fx.copyDeps, warehouse: async () => warehouse },
      { kind: "copy", table, destination: table, filterColumn: "created_at", day: "2024-10-01" },
    );
  } else {
    await fx.copy(table, "2024-10-01");
  }
  const destination = { dataset: "archive", table };
  const schema = await fx.source.describeTable(table);
  if (!schema) throw new Error("no table");
  const copied = await readDuckDbDay(
    fx.warehouse,
    { destination, filterColumn: "created_at", day: "2024-10-01" },
    schema,
  );
  const settings = { chunkRows: 2 };
  await expect(
    cleanDay(fx.deps({ deleter: failAfter(fx.deleter, 2), settings }), cleanTask(table, "2024-10-01")),
  ).rejects.toThrow("killed");
  expect(await fx.idsOn(table, "2024-10-01")).toHaveLength(1);
  await forget(table, "2024-10-01");
  const warehouseDay = () =>
    readDuckDbDay(fx.warehouse, { destination, filterColumn: "created_at", day: "2024-10-01" }, schema);
  return { table, copied, settings, warehouseDay };
}

describe("Redis coming back empty in the middle of a cleanup", () => {
  it("the same copy and cleanup tasks run again converge: the day is cleaned, the warehouse keeps every row", async () => {
    const { table, copied, settings, warehouseDay } = await partCleanedDay();

    // The migration published again queues the day again: its copy finds the durable record and
    // writes it back to Redis instead of copying what is left.
    await fx.copy(table, "2024-10-01");
    expect(await fx.ledger.isMigrated(table, "2024-10-01")).toBe(true);
    expect(await warehouseDay()).toEqual(copied);

    // The cleanup published again resumes the plan the durable record kept.
    const report = await cleanDay(fx.deps({ settings }), cleanTask(table, "2024-10-01"));
    expect(report.outcome).toBe("cleaned");
    expect(report.rowsFoundGone).toBe(4);
    expect(await fx.idsOn(table, "2024-10-01")).toEqual([]);
    expect(await warehouseDay()).toEqual(copied);
    expect(
      fx.logs.some((l) => l.message.startsWith("cleanup: resuming a day whose cleanup had started")),
    ).toBe(true);

    // And again: a repeated task is a no-op.
    const again = await cleanDay(fx.deps({ settings }), cleanTask(table, "2024-10-01"));
    expect(again.outcome).toBe("already-done");
  });

  it("a cleanup task that finds no record in Redis takes it from the durable record", async () => {
    const { table, copied, settings, warehouseDay } = await partCleanedDay();
    // No copy ran again (a cleanup task still queued when Redis lost its data, as Cloud Tasks keeps them).
    const report = await cleanDay(fx.deps({ settings }), cleanTask(table, "2024-10-01"));
    expect(report.outcome).toBe("cleaned");
    expect(await fx.idsOn(table, "2024-10-01")).toEqual([]);
    expect(await warehouseDay()).toEqual(copied);
    expect(await fx.ledger.isMigrated(table, "2024-10-01")).toBe(true);
  });

  it("copies a day again when the warehouse no longer holds the copy its durable record names", async () => {
    const table = await fx.keyedTable(["2024-10-04"], 3);
    await fx.copy(table, "2024-10-04");
    await forget(table, "2024-10-04");
    await dropWarehouseTable(fx, table);

    // A worker started after the reset (the fixture's warehouse remembers the table it made).
    const restarted = await createDuckDbWarehouse({ path: fx.warehousePath, dataset: "archive" });
    try {
      await copyDay(
        { ...fx.copyDeps, warehouse: async () => restarted },
        { kind: "copy", table, destination: table, filterColumn: "created_at", day: "2024-10-04" },
      );
    } finally {
      await restarted.close();
    }
    const schema = await fx.source.describeTable(table);
    if (!schema) throw new Error("no table");
    const copied = await readDuckDbDay(
      fx.warehouse,
      { destination: { dataset: "archive", table }, filterColumn: "created_at", day: "2024-10-04" },
      schema,
    );
    expect(copied).toHaveLength(3);
    expect(
      fx.logs.some((l) =>
        l.message.startsWith("the durable record names a copy the warehouse no longer holds"),
      ),
    ).toBe(true);
    expect(await fx.ledger.isMigrated(table, "2024-10-04")).toBe(true);
  });

  it("rebuilds mig_<table> and the copy records from the durable record", async () => {
    const table = await fx.keyedTable(["2024-10-02", "2024-10-03"], 2);
    await fx.copy(table, "2024-10-02");
    await fx.copy(table, "2024-10-03");
    const before = await fx.ledger.copiedDays(table, ["2024-10-02", "2024-10-03"]);
    await forget(table, "2024-10-02");
    expect(await fx.ledger.migratedDays(table)).toEqual([]);

    const deps = { ...fx.copyDeps, warehouse: async () => fx.warehouse };
    expect(await rebuildMigratedDays(deps, { dataset: "archive" }, table)).toEqual([
      "2024-10-02",
      "2024-10-03",
    ]);
    expect(await fx.ledger.migratedDays(table)).toEqual(["2024-10-02", "2024-10-03"]);
    expect(await fx.ledger.copiedDays(table, ["2024-10-02", "2024-10-03"])).toEqual(before);
    // Nothing left to rebuild, for this table or any other the record holds.
    expect(await rebuildMigratedDays(deps, { dataset: "archive" }, table)).toEqual([]);
    const all = await rebuildAllMigratedDays(deps, { dataset: "archive" });
    expect(all.find((entry) => entry.table === table)).toEqual({ table, restored: [] });
  });

  it("without a durable record (a day copied by an earlier version), a copy of the part-cleaned day is refused", async () => {
    const { table, copied, warehouseDay } = await partCleanedDay({ copiedBefore: "durable-record" });

    const again = fx.copy(table, "2024-10-01");
    await expect(again).rejects.toBeInstanceOf(RefusalError);
    await expect(again).rejects.toThrow(
      /source has 1 rows for the day but the warehouse holds 5; refusing to shrink/,
    );
    expect(await warehouseDay()).toEqual(copied);
    expect(await fx.ledger.isMigrated(table, "2024-10-01")).toBe(false);
  });
});
