import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanupKeys } from "../../adapters/redis/redis-cleanup-state";
import { copiedDaysKey, migratedDaysKey } from "../../adapters/redis/redis-migration-ledger";
import { VerificationError } from "../../errors";
import {
  type CleanupFixture,
  cleanTask,
  createCleanupFixture,
  failAfter,
} from "../../testing/cleanup-fixture";
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

describe("Redis coming back empty in the middle of a cleanup", () => {
  it("a copy of the part-cleaned day is refused: the warehouse keeps every row the source no longer has", async () => {
    const table = await fx.keyedTable(["2024-10-01"], 5);
    await fx.copy(table, "2024-10-01");
    const destination = { dataset: "archive", table };
    const schema = await fx.source.describeTable(table);
    if (!schema) throw new Error("no table");
    const copied = await fx.warehouse.readDay(destination, "created_at", "2024-10-01", schema);
    // Two chunks of 2 deleted, then the worker dies, then Redis loses everything.
    const settings = { chunkRows: 2 };
    await expect(
      cleanDay(fx.deps({ deleter: failAfter(fx.deleter, 2), settings }), cleanTask(table, "2024-10-01")),
    ).rejects.toThrow("killed");
    expect(await fx.idsOn(table, "2024-10-01")).toHaveLength(1);
    await forget(table, "2024-10-01");

    // The same migration published again queues the day again: its copy must not shrink the warehouse's.
    const again = fx.copy(table, "2024-10-01");
    await expect(again).rejects.toBeInstanceOf(VerificationError);
    await expect(again).rejects.toThrow(
      /source has 1 rows for the day but the warehouse holds 5; refusing to shrink/,
    );
    expect(await fx.warehouse.readDay(destination, "created_at", "2024-10-01", schema)).toEqual(copied);
    expect(await fx.ledger.isMigrated(table, "2024-10-01")).toBe(false);
  });
});
