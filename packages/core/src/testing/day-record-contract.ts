import { expect, it } from "vitest";
import { RefusalError } from "../errors";
import type { CopiedDayRecord } from "../model/copied-day-record";
import type { CleanupStart } from "../ports/day-record";
import type { Warehouse } from "../ports/warehouse";
import { batchesOf, dayOf } from "./orders-fixture";
import { uniqueName } from "./test-services";
import { keyedRows, keyedSchema } from "./warehouse-contract-fixtures";

/** A copy record of `day` as copyDay writes it, copied at `copiedAt`. */
export function copyRecordOf(day: string, copiedAt: string, rows = 3): CopiedDayRecord {
  return {
    day,
    destination: "orders_archive",
    filterColumn: "created_at",
    figures: { rows, fingerprint: String(rows * 1_000_000_007) },
    zeroDates: 0,
    bytes: rows * 100,
    durationMs: 12,
    copiedAt,
  };
}

function cleanupStartOf(copiedAt: string, verifiedAt: string): CleanupStart {
  return {
    copiedAt,
    verifiedAt,
    figures: { rows: 3, fingerprint: "3000000021" },
    plan: {
      kind: "chunks",
      by: { kind: "key", column: "id", unsigned: false },
      chunks: [{ first: "1", last: "2", rows: 2, sum: "3", fingerprint: "2" }],
      newestFirst: false,
    },
  };
}

/**
 * The durable day record (ports/day-record.ts) of every Warehouse adapter,
 * run inside describeWarehouseContract: entries read back, the latest of each
 * kind wins whatever order they were written in, other tables and days stay
 * apart, and a dataset without a record reads as empty.
 */
export function dayRecordContract(warehouse: () => Warehouse, dataset: string): void {
  it("keeps the copy and cleanup-start entries of a day and reads back the latest of each", async () => {
    const w = warehouse();
    const table = uniqueName("recorded");
    const at = { dataset };
    await w.recordDay(at, {
      kind: "copied",
      table,
      copy: copyRecordOf("2024-05-06", "2024-06-01T10:00:00.000Z"),
    });
    // Written out of order: the later copy still wins.
    await w.recordDay(at, {
      kind: "copied",
      table,
      copy: copyRecordOf("2024-05-06", "2024-06-02T10:00:00.000Z", 5),
    });
    await w.recordDay(at, {
      kind: "copied",
      table,
      copy: copyRecordOf("2024-05-06", "2024-06-01T12:00:00.000Z", 4),
    });
    await w.recordDay(at, {
      kind: "cleanup-started",
      table,
      day: "2024-05-06",
      cleanup: cleanupStartOf("2024-06-02T10:00:00.000Z", "2024-06-03T00:00:00.000Z"),
    });
    const record = await w.dayRecord(at, table, "2024-05-06");
    expect(record.copy).toEqual(copyRecordOf("2024-05-06", "2024-06-02T10:00:00.000Z", 5));
    expect(record.cleanup).toEqual(cleanupStartOf("2024-06-02T10:00:00.000Z", "2024-06-03T00:00:00.000Z"));
  });

  it("keeps a copy's key chunks exactly, the 4,000 of the largest day a copy cuts", async () => {
    const w = warehouse();
    const table = uniqueName("chunked");
    const chunks = Array.from({ length: 4_000 }, (_, i) => ({
      first: String(9_007_199_254_740_993n + BigInt(i) * 1_000n),
      last: String(9_007_199_254_740_993n + BigInt(i) * 1_000n + 999n),
      rows: 1_000,
      fingerprint: String(18_446_744_073_709_551_615n * 1_000n - BigInt(i)),
    }));
    const copy = { ...copyRecordOf("2024-05-08", "2024-06-01T00:00:00.000Z", 4_000_000), chunks };
    await w.recordDay({ dataset }, { kind: "copied", table, copy });
    expect((await w.dayRecord({ dataset }, table, "2024-05-08")).copy).toEqual(copy);
    expect(await w.recordedCopies({ dataset }, table)).toEqual([copy]);
  });

  it("keeps days and source tables apart, and lists the latest copy of each day, oldest day first", async () => {
    const w = warehouse();
    const table = uniqueName("recorded");
    const other = uniqueName("other");
    const at = { dataset };
    await w.recordDay(at, {
      kind: "copied",
      table,
      copy: copyRecordOf("2024-05-07", "2024-06-01T00:00:00.000Z"),
    });
    await w.recordDay(at, {
      kind: "copied",
      table,
      copy: copyRecordOf("2024-05-05", "2024-06-01T00:00:00.000Z"),
    });
    await w.recordDay(at, {
      kind: "copied",
      table,
      copy: copyRecordOf("2024-05-05", "2024-06-04T00:00:00.000Z", 9),
    });
    await w.recordDay(at, {
      kind: "copied",
      table: other,
      copy: copyRecordOf("2024-05-06", "2024-06-01T00:00:00.000Z"),
    });
    await w.recordDay(at, {
      kind: "cleanup-started",
      table,
      day: "2024-05-07",
      cleanup: cleanupStartOf("2024-06-01T00:00:00.000Z", "2024-06-05T00:00:00.000Z"),
    });

    expect(await w.dayRecord(at, table, "2024-05-06")).toEqual({});
    expect((await w.dayRecord(at, table, "2024-05-05")).cleanup).toBeUndefined();
    expect((await w.dayRecord(at, other, "2024-05-06")).copy?.day).toBe("2024-05-06");
    const copies = await w.recordedCopies(at, table);
    expect(copies.map((copy) => [copy.day, copy.figures.rows])).toEqual([
      ["2024-05-05", 9],
      ["2024-05-07", 3],
    ]);
    const tables = await w.recordedTables(at);
    expect(tables).toEqual(expect.arrayContaining([table, other]));
    expect(tables).toEqual([...tables].sort());
  });

  it("keeps the entry replaceDay's record answers once the rows are written, and none when it throws", async () => {
    const w = warehouse();
    const table = uniqueName("replaced");
    const destination = { dataset, table };
    const schema = keyedSchema();
    await w.ensureTable(destination, schema, "created_at");
    const written: number[] = [];
    await w.replaceDay(
      dayOf(destination, "2024-05-09"),
      schema,
      batchesOf(keyedRows("2024-05-09", [1, 2, 3])),
      "id",
      async ({ rowsWritten }) => {
        written.push(rowsWritten);
        return { kind: "copied", table, copy: copyRecordOf("2024-05-09", "2024-06-01T00:00:00.000Z", 3) };
      },
    );
    expect(written).toEqual([3]);
    expect((await w.dayRecord({ dataset }, table, "2024-05-09")).copy?.figures.rows).toBe(3);

    const refused = w.replaceDay(
      dayOf(destination, "2024-05-10"),
      schema,
      batchesOf(keyedRows("2024-05-10", [4])),
      "id",
      async () => {
        throw new RefusalError("the rows are not what was read");
      },
    );
    await expect(refused).rejects.toThrow("the rows are not what was read");
    expect(await w.dayRecord({ dataset }, table, "2024-05-10")).toEqual({});
  });

  it("keeps a source table whose name holds a quote apart, as written", async () => {
    const w = warehouse();
    const table = `${uniqueName("quoted")}'s`;
    const at = { dataset };
    await w.recordDay(at, {
      kind: "copied",
      table,
      copy: copyRecordOf("2024-05-08", "2024-06-01T00:00:00.000Z"),
    });
    expect((await w.dayRecord(at, table, "2024-05-08")).copy?.day).toBe("2024-05-08");
    expect(await w.dayRecord(at, table.slice(0, -2), "2024-05-08")).toEqual({});
    expect((await w.recordedCopies(at, table)).map((copy) => copy.day)).toEqual(["2024-05-08"]);
  });

  it("reads a dataset without a record (or that does not exist) as empty, creating nothing", async () => {
    const w = warehouse();
    const at = { dataset: uniqueName("norecord") };
    expect(await w.dayRecord(at, "orders", "2024-05-06")).toEqual({});
    expect(await w.recordedCopies(at, "orders")).toEqual([]);
    expect(await w.recordedTables(at)).toEqual([]);
    expect(await w.hasTable({ ...at, table: "_archiver_days" })).toBe(false);
  });
}
