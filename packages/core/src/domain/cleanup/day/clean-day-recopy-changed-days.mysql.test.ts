import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RefusalError } from "../../../errors";
import { cleanupFixture, fx } from "../../../testing/cleanup/file-fixture";
import { recopyTask, sourceDay, warehouseDay } from "../../../testing/cleanup/recopy-days";
import { cleanTask, refusal } from "../../../testing/cleanup-fixture";
import { uniqueName } from "../../../testing/test-services";
import { cleanDay } from "./clean-day";

// A kill in the middle of a re-copy, then a retry: clean-day-recopy.mysql.test.ts.

beforeAll(cleanupFixture.create);
afterAll(cleanupFixture.close);

describe("cleanDay with recopyChangedDays", () => {
  it.each([
    [
      "a row updated in place",
      (t: string) => fx.query(`UPDATE \`${t}\` SET status = 'paid', amount = 1.00 WHERE id = 2`),
    ],
    [
      "a row deleted and inserted again with the same key and other content",
      async (t: string) => {
        await fx.query(`DELETE FROM \`${t}\` WHERE id = 3`);
        await fx.query(
          `INSERT INTO \`${t}\` (id, created_at, status, amount) VALUES (3, '2024-08-01 03:00:00.000001', 'redo', 12.51)`,
        );
      },
    ],
    [
      "a late row added",
      (t: string) =>
        fx.query(
          `INSERT INTO \`${t}\` (created_at, status, amount) VALUES ('2024-08-01 23:00:00', 'late', 5.00)`,
        ),
    ],
  ])("%s: the day is copied again with its new content, then cleaned", async (_, change) => {
    const table = await fx.ordersTable(["2024-08-01", "2024-08-02"]);
    await fx.copy(table, "2024-08-01");
    await fx.copy(table, "2024-08-02");
    const old = await fx.ledger.copiedDay(table, "2024-08-01");
    const otherDay = await warehouseDay(table, "2024-08-02");
    await change(table);
    const now = await sourceDay(table, "2024-08-01");
    expect(await warehouseDay(table, "2024-08-01")).not.toEqual(now);

    const report = await cleanDay(fx.deps(), recopyTask(table, "2024-08-01"));

    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: now.length });
    expect(await warehouseDay(table, "2024-08-01")).toEqual(now);
    expect(await sourceDay(table, "2024-08-01")).toEqual([]);
    expect(await sourceDay(table, "2024-08-02")).toEqual(otherDay);
    expect(await warehouseDay(table, "2024-08-02")).toEqual(otherDay);
    expect(await fx.warehouse.countRows({ dataset: "archive", table })).toBe(now.length + 3);
    const record = await fx.ledger.copiedDay(table, "2024-08-01");
    expect(record?.figures.rows).toBe(now.length);
    expect(record?.figures.fingerprint).toMatch(/^\d+$/);
    expect(record?.figures.fingerprint).not.toBe(old?.figures.fingerprint);
    expect(
      fx.logs.some(
        (l) => l.message === "cleanup: copying a changed day again before cleaning it" && l.table === table,
      ),
    ).toBe(true);
  });

  it("a record without a fingerprint: the day is copied again (now fingerprinted), then cleaned", async () => {
    const table = await fx.ordersTable(["2024-08-03"]);
    await fx.copy(table, "2024-08-03");
    const record = await fx.ledger.copiedDay(table, "2024-08-03");
    if (!record) throw new Error("no record");
    const { fingerprint, ...figures } = record.figures;
    await fx.ledger.recordCopiedDay(table, { ...record, figures });
    const rows = await sourceDay(table, "2024-08-03");

    const report = await cleanDay(fx.deps(), recopyTask(table, "2024-08-03"));

    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 3 });
    expect(await warehouseDay(table, "2024-08-03")).toEqual(rows);
    expect(await sourceDay(table, "2024-08-03")).toEqual([]);
    expect((await fx.ledger.copiedDay(table, "2024-08-03"))?.figures.fingerprint).toBe(fingerprint);
  });

  it("a keyless table with a changed duplicate: copied again, then cleaned", async () => {
    const table = uniqueName("events");
    await fx.query(
      `CREATE TABLE \`${table}\` (created_at DATETIME NOT NULL, kind VARCHAR(8), n INT) ENGINE=InnoDB`,
    );
    await fx.query(
      `INSERT INTO \`${table}\` VALUES ('2024-08-04 01:00:00', 'a', 1), ('2024-08-04 01:00:00', 'a', 1),
         ('2024-08-04 02:00:00', 'b', 2), ('2024-08-05 01:00:00', 'c', 3)`,
    );
    await fx.copy(table, "2024-08-04");
    await fx.query(`UPDATE \`${table}\` SET n = 9 WHERE kind = 'a' LIMIT 1`);
    const now = await sourceDay(table, "2024-08-04");

    const report = await cleanDay(fx.deps({ settings: { chunkRows: 1 } }), recopyTask(table, "2024-08-04"));

    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 3 });
    expect(await warehouseDay(table, "2024-08-04")).toEqual(now);
    expect(now).toEqual([
      ["2024-08-04 01:00:00", "a", 1],
      ["2024-08-04 01:00:00", "a", 9],
      ["2024-08-04 02:00:00", "b", 2],
    ]);
    expect(await fx.query(`SELECT * FROM \`${table}\``)).toEqual([
      { created_at: "2024-08-05 01:00:00", kind: "c", n: 3 },
    ]);
  });

  it("a day that lost a row is not copied again: refused, the warehouse keeps every copied row", async () => {
    const table = await fx.ordersTable(["2024-08-06"]);
    await fx.copy(table, "2024-08-06");
    const copied = await warehouseDay(table, "2024-08-06");
    const record = await fx.ledger.copiedDay(table, "2024-08-06");
    await fx.query(`DELETE FROM \`${table}\` WHERE id = 2`);
    const left = await sourceDay(table, "2024-08-06");

    const error = await refusal(cleanDay(fx.deps(), recopyTask(table, "2024-08-06")));

    expect(error.reason).toBe("changed");
    expect(error.message).toMatch(
      /re-copying would remove from the warehouse rows that have left the source/,
    );
    expect(await warehouseDay(table, "2024-08-06")).toEqual(copied);
    expect(copied).toHaveLength(3);
    expect(await sourceDay(table, "2024-08-06")).toEqual(left);
    expect(await fx.ledger.copiedDay(table, "2024-08-06")).toEqual(record);
    expect(await fx.deps().state.read({ table, day: "2024-08-06" })).toBeUndefined();
  });

  it("a keyless day that lost one of two identical rows is not copied again", async () => {
    const table = uniqueName("events");
    await fx.query(`CREATE TABLE \`${table}\` (created_at DATETIME NOT NULL, kind VARCHAR(8)) ENGINE=InnoDB`);
    await fx.query(
      `INSERT INTO \`${table}\` VALUES ('2024-08-07 01:00:00', 'a'), ('2024-08-07 01:00:00', 'a'), ('2024-08-07 02:00:00', 'b')`,
    );
    await fx.copy(table, "2024-08-07");
    const copied = await warehouseDay(table, "2024-08-07");
    await fx.query(`DELETE FROM \`${table}\` WHERE kind = 'a' LIMIT 1`);

    const error = await refusal(cleanDay(fx.deps(), recopyTask(table, "2024-08-07")));

    expect(error.reason).toBe("changed");
    expect(await warehouseDay(table, "2024-08-07")).toEqual(copied);
    expect(copied).toHaveLength(3);
    expect(await sourceDay(table, "2024-08-07")).toHaveLength(2);
  });

  // A row that left the source while another arrived on the same day keeps the
  // count: the re-copy is refused by key, so the row that left stays in the warehouse.
  it("a day that lost a row and gained another (same count) is not copied again", async () => {
    const table = await fx.ordersTable(["2024-08-08"]);
    await fx.copy(table, "2024-08-08");
    const copied = await warehouseDay(table, "2024-08-08");
    await fx.query(`DELETE FROM \`${table}\` WHERE id = 2`);
    await fx.query(
      `INSERT INTO \`${table}\` (id, created_at, status, amount) VALUES (50, '2024-08-08 05:00:00', 'late', 1.00)`,
    );
    const gone = copied.find((row) => row[0] === "2");
    expect(gone).toBeDefined();

    const outcome = await cleanDay(fx.deps(), recopyTask(table, "2024-08-08")).then(
      (report) => report.outcome,
      (error: unknown) => error,
    );

    // Row 2 exists only in the warehouse now: it must still be there, whatever the task did.
    expect(await warehouseDay(table, "2024-08-08")).toContainEqual(gone);
    expect(outcome).toBeInstanceOf(RefusalError);
  });

  it("without the flag a changed day is refused and nothing is copied again", async () => {
    const table = await fx.ordersTable(["2024-08-09"]);
    await fx.copy(table, "2024-08-09");
    const copied = await warehouseDay(table, "2024-08-09");
    const record = await fx.ledger.copiedDay(table, "2024-08-09");
    await fx.query(`UPDATE \`${table}\` SET status = 'paid' WHERE id = 1`);
    await fx.query(
      `INSERT INTO \`${table}\` (created_at, status, amount) VALUES ('2024-08-09 09:00:00', 'x', 1)`,
    );
    const now = await sourceDay(table, "2024-08-09");

    const error = await refusal(cleanDay(fx.deps(), cleanTask(table, "2024-08-09")));

    expect(error.reason).toBe("changed");
    expect(error.message).toMatch(/rows added: 1 row more than copied/);
    expect(await warehouseDay(table, "2024-08-09")).toEqual(copied);
    expect(await fx.ledger.copiedDay(table, "2024-08-09")).toEqual(record);
    expect(await sourceDay(table, "2024-08-09")).toEqual(now);
  });
});
