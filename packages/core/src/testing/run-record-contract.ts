import { expect, it } from "vitest";
import { NO_COUNTS, type RunRecord } from "../model/run";
import type { Warehouse } from "../ports/warehouse";
import { uniqueName } from "./test-services";

/** A finished run of `table` started at `startedAt`, with every field a record can have. */
export function runRecordOf(table: string, startedAt: string, extra: Partial<RunRecord> = {}): RunRecord {
  return {
    ...NO_COUNTS,
    id: uniqueName("run"),
    table,
    mode: "cleanup",
    dataset: "archive",
    startedAt,
    endedAt: new Date(Date.parse(startedAt) + 60_000).toISOString(),
    queued: 3,
    cleaned: 2,
    refused: 1,
    rows: 1234,
    waitedMsByReason: { replicaLag: 1500 },
    result: "partial",
    ...extra,
  };
}

/**
 * The run history (ports/run-history.ts RunRecordStore) of every Warehouse
 * adapter, run inside describeWarehouseContract: runs read back whole, newest
 * start first, by table, limited; a dataset without history reads as empty.
 */
export function runRecordContract(warehouse: () => Warehouse, dataset: string): void {
  it("keeps finished runs and reads them back whole, newest start first, by table", async () => {
    const w = warehouse();
    const at = { dataset };
    const table = uniqueName("ran");
    const other = uniqueName("ran_other");
    const older = runRecordOf(table, "2024-06-01T10:00:00.000Z", { policy: "orders" });
    const newer = runRecordOf(table, "2024-06-02T10:00:00.000Z", {
      mode: "migration",
      copied: 5,
      cleaned: 0,
      refused: 0,
      result: "succeeded",
      dryRun: false,
    });
    const elsewhere = runRecordOf(other, "2024-06-03T10:00:00.000Z", { failed: 1, result: "failed" });
    // Written out of order: the read still sorts by start.
    await w.recordRun(at, newer);
    await w.recordRun(at, older);
    await w.recordRun(at, elsewhere);
    expect(await w.runs(at, { table })).toEqual([newer, older]);
    expect(await w.runs(at, { table: other })).toEqual([elsewhere]);
    const all = await w.runs(at);
    expect(all.filter((run) => run.table === table || run.table === other)).toEqual([
      elsewhere,
      newer,
      older,
    ]);
    expect(await w.runs(at, { table, limit: 1 })).toEqual([newer]);
  });

  it("reads a dataset without a run history as none", async () => {
    expect(await warehouse().runs({ dataset: uniqueName("no_runs") })).toEqual([]);
  });
}
