import { describe, expect, it } from "vitest";
import { describeMigrationLedgerContract, ledgerRecord } from "../migration-ledger-contract";
import { createMemoryLedger } from "./memory-ledger";

describeMigrationLedgerContract("in memory", async () => {
  let tables = 0;
  return { ledger: createMemoryLedger(), table: () => `table_${++tables}`, cleanup: async () => {} };
});

describe("createMemoryLedger", () => {
  it("forgets a day, or everything, as Redis losing its data would", async () => {
    const ledger = createMemoryLedger();
    await ledger.recordCopiedDay("orders", ledgerRecord("2020-01-01"));
    await ledger.recordCopiedDay("orders", ledgerRecord("2020-01-02"));
    await ledger.recordCopiedDay("events", ledgerRecord("2020-01-01"));

    ledger.forget("orders", "2020-01-01");
    expect(await ledger.migratedDays("orders")).toEqual(["2020-01-02"]);
    expect(await ledger.copiedDay("orders", "2020-01-01")).toBeUndefined();

    ledger.clear();
    expect(await ledger.tables()).toEqual([]);
  });

  it("hands out copies, never its own records", async () => {
    const ledger = createMemoryLedger();
    await ledger.recordCopiedDay("orders", ledgerRecord("2020-01-01"));
    const read = await ledger.copiedDay("orders", "2020-01-01");
    (read as { bytes: number }).bytes = -1;
    expect((await ledger.copiedDay("orders", "2020-01-01"))?.bytes).toBe(120);
  });
});
