import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidInputError } from "../errors";
import type { CopiedDayRecord } from "../model/copied-day-record";
import type { MigrationLedger } from "../ports/migration-ledger";

/** What a MigrationLedger adapter hands the contract suite. */
export interface MigrationLedgerContractSubject {
  readonly ledger: MigrationLedger;
  /** A table name no other test has used with this ledger. */
  table(): string;
  /** Removes what the suite wrote. */
  cleanup(): Promise<void>;
}

/** A copy record of `day`, with a key sum beyond 2^64 so that precision loss would show. */
export const ledgerRecord = (day: string, rows = 3): CopiedDayRecord => ({
  day,
  destination: "archive.orders",
  filterColumn: "created_at",
  figures: {
    rows,
    fingerprint: "36893488147419103230",
    key: { column: "id", count: rows, sum: "18446744073709551615", min: "1", max: "9" },
  },
  zeroDates: 0,
  bytes: 120,
  durationMs: 15,
  copiedAt: "2024-05-01T10:00:00.000Z",
});

/**
 * The behaviour every MigrationLedger adapter must have (see
 * ports/migration-ledger.ts): a day is migrated exactly when its record is
 * written, records read back as written, days come sorted, tables never mix.
 */
export function describeMigrationLedgerContract(
  name: string,
  setup: () => Promise<MigrationLedgerContractSubject>,
): void {
  describe(`MigrationLedger contract: ${name}`, () => {
    let subject: MigrationLedgerContractSubject;
    const ledger = () => subject.ledger;

    beforeAll(async () => {
      subject = await setup();
    });
    afterAll(async () => {
      await subject?.cleanup();
    });

    it("records a day as migrated together with its copy record", async () => {
      const table = subject.table();
      await ledger().recordCopiedDay(table, ledgerRecord("2020-01-31"));

      expect(await ledger().migratedDays(table)).toEqual(["2020-01-31"]);
      expect(await ledger().isMigrated(table, "2020-01-31")).toBe(true);
      expect(await ledger().isMigrated(table, "2020-02-01")).toBe(false);
      expect(await ledger().copiedDay(table, "2020-01-31")).toEqual(ledgerRecord("2020-01-31"));
      expect(await ledger().copiedDays(table, ["2020-02-01", "2020-01-31"])).toEqual(
        new Map([["2020-01-31", ledgerRecord("2020-01-31")]]),
      );
      expect(await ledger().copiedDays(table, [])).toEqual(new Map());
    });

    it("returns migrated days sorted, whatever the order they were recorded in", async () => {
      const table = subject.table();
      for (const day of ["2021-03-01", "2019-12-31", "2021-02-28", "2020-02-29"]) {
        await ledger().recordCopiedDay(table, ledgerRecord(day));
      }
      expect(await ledger().migratedDays(table)).toEqual([
        "2019-12-31",
        "2020-02-29",
        "2021-02-28",
        "2021-03-01",
      ]);
    });

    it("records a day again by replacing its record, keeping one member", async () => {
      const table = subject.table();
      await ledger().recordCopiedDay(table, ledgerRecord("2020-05-05", 3));
      await ledger().recordCopiedDay(table, ledgerRecord("2020-05-05", 4));
      expect(await ledger().migratedDays(table)).toEqual(["2020-05-05"]);
      expect((await ledger().copiedDay(table, "2020-05-05"))?.figures.rows).toBe(4);
    });

    it("answers undefined and nothing for what was never recorded", async () => {
      const table = subject.table();
      expect(await ledger().copiedDay(table, "2020-01-01")).toBeUndefined();
      expect(await ledger().copiedDays(table, ["2020-01-01"])).toEqual(new Map());
      expect(await ledger().migratedDays(table)).toEqual([]);
      expect(await ledger().isMigrated(table, "2020-01-01")).toBe(false);
    });

    it("keeps each table's days and records to itself", async () => {
      const [a, b] = [subject.table(), subject.table()];
      await ledger().recordCopiedDay(a, ledgerRecord("2020-01-01", 1));
      await ledger().recordCopiedDay(b, ledgerRecord("2020-01-02", 2));
      expect(await ledger().migratedDays(a)).toEqual(["2020-01-01"]);
      expect(await ledger().isMigrated(a, "2020-01-02")).toBe(false);
      expect(await ledger().copiedDay(b, "2020-01-01")).toBeUndefined();
      expect((await ledger().copiedDay(b, "2020-01-02"))?.figures.rows).toBe(2);
    });

    it("refuses a day that is not YYYY-MM-DD, recording nothing", async () => {
      const table = subject.table();
      await expect(ledger().recordCopiedDay(table, ledgerRecord("2020-02-30"))).rejects.toBeInstanceOf(
        InvalidInputError,
      );
      await expect(ledger().recordCopiedDay(table, ledgerRecord("20200101"))).rejects.toBeInstanceOf(
        InvalidInputError,
      );
      expect(await ledger().migratedDays(table)).toEqual([]);
    });

    it("lists, sorted, the tables that have migrated days", async () => {
      const [a, b, untouched] = [subject.table(), subject.table(), subject.table()];
      await ledger().recordCopiedDay(b, ledgerRecord("2020-01-01"));
      await ledger().recordCopiedDay(a, ledgerRecord("2020-01-01"));
      await ledger().copiedDay(untouched, "2020-01-01");

      const tables = await ledger().tables();
      expect(tables).toEqual(expect.arrayContaining([a, b]));
      expect(tables).not.toContain(untouched);
      expect(tables).toEqual([...tables].sort());
    });
  });
}
