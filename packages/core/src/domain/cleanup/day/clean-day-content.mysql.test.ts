import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isFinalTaskError } from "../../../errors";
import type { CalendarDay } from "../../../model/calendar-day";
import { rowsOf } from "../../../testing/cleanup/content-rows";
import { cleanupFixture, fx } from "../../../testing/cleanup/file-fixture";
import { cleanTask, failAfter, refusal } from "../../../testing/cleanup-fixture";
import { uniqueName } from "../../../testing/test-services";
import { cleanDay } from "./clean-day";

// Duplicate rows of a keyless table: clean-day-duplicate-rows.mysql.test.ts; a change after verification, and
// the retries after a kill that delete exactly the day: clean-day-content-while-deleting.mysql.test.ts.

beforeAll(cleanupFixture.create);
afterAll(cleanupFixture.close);

/** The refusal's log line: cleanDay logs every refused day with its reason. */
function refusedLine(table: string, day: CalendarDay) {
  return fx.logs.find(
    (l) => l.message === "cleanup refused day; its rows are kept" && l.table === table && l.day === day,
  );
}

describe("cleanDay refuses a day whose content changed since its copy", () => {
  it("a row updated in place (same key, same count) keeps the whole day; other days still clean", async () => {
    const table = await fx.ordersTable(["2024-07-01", "2024-07-02"]);
    await fx.copy(table, "2024-07-01");
    await fx.copy(table, "2024-07-02");
    await fx.query(`UPDATE \`${table}\` SET status = 'paid', amount = 99.99 WHERE id = 2`);
    const before = await rowsOf(table);

    const error = await refusal(cleanDay(fx.deps(), cleanTask(table, "2024-07-01")));

    expect(error.reason).toBe("changed");
    expect(isFinalTaskError(error)).toBe(true);
    expect(error.message).toMatch(
      /source changed since the copy \(rows changed: the same rows by count and key/,
    );
    expect(await rowsOf(table)).toEqual(before);
    expect(await fx.deps().state.read({ table, day: "2024-07-01" })).toBeUndefined();
    expect(refusedLine(table, "2024-07-01")).toMatchObject({ refusal: "changed" });

    const report = await cleanDay(fx.deps(), cleanTask(table, "2024-07-02"));
    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 3 });
    expect(await rowsOf(table)).toEqual(before.slice(0, 3));
    expect((await rowsOf(table))[1]).toMatchObject({ id: "2", status: "paid", amount: "99.99" });
  });

  it.each([
    ["a case-only change the collation calls equal", `SET status = 'NEW' WHERE id = 1`],
    ["a trailing space the collation ignores", `SET status = 'new ' WHERE id = 1`],
    ["NULL for a value", `SET status = NULL WHERE id = 1`],
    ["an empty string for a value", `SET status = '' WHERE id = 2`],
    [
      "a microsecond of the filter column",
      `SET created_at = created_at + INTERVAL 1 MICROSECOND WHERE id = 1`,
    ],
    ["one cent", `SET amount = amount + 0.01 WHERE id = 3`],
  ])("%s is a change: the day is refused and kept", async (_, update) => {
    const table = await fx.ordersTable(["2024-07-03"]);
    await fx.copy(table, "2024-07-03");
    await fx.query(`UPDATE \`${table}\` ${update}`);
    const before = await rowsOf(table);

    const error = await refusal(cleanDay(fx.deps(), cleanTask(table, "2024-07-03")));

    expect(error.reason).toBe("changed");
    expect(error.message).toMatch(/rows changed/);
    expect(await rowsOf(table)).toEqual(before);
  });

  it("a row deleted and inserted again with the same key and other content is refused", async () => {
    const table = await fx.ordersTable(["2024-07-04"]);
    await fx.copy(table, "2024-07-04");
    await fx.query(`DELETE FROM \`${table}\` WHERE id = 2`);
    await fx.query(
      `INSERT INTO \`${table}\` (id, created_at, status, amount) VALUES (2, '2024-07-04 02:00:00.000001', 'new', 11.49)`,
    );
    const before = await rowsOf(table);

    const error = await refusal(cleanDay(fx.deps(), cleanTask(table, "2024-07-04")));

    expect(error.reason).toBe("changed");
    expect(error.message).toMatch(/rows changed/);
    expect(await rowsOf(table)).toEqual(before);
    expect(before.map((row) => row.id)).toEqual(["1", "2", "3"]);
  });

  it("a row deleted and inserted again identically is no change: the day cleans", async () => {
    const table = await fx.ordersTable(["2024-07-05"]);
    await fx.copy(table, "2024-07-05");
    await fx.query(`DELETE FROM \`${table}\` WHERE id = 2`);
    await fx.query(
      `INSERT INTO \`${table}\` (id, created_at, status, amount) VALUES (2, '2024-07-05 02:00:00.000001', 'new', 11.50)`,
    );

    const report = await cleanDay(fx.deps(), cleanTask(table, "2024-07-05"));

    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 3 });
    expect(await rowsOf(table)).toEqual([]);
  });

  it("a table with a composite primary key: one changed row refuses the day", async () => {
    const table = uniqueName("lines");
    await fx.query(
      `CREATE TABLE \`${table}\` (
         order_id INT NOT NULL,
         line INT NOT NULL,
         created_at DATETIME NOT NULL,
         sku VARCHAR(16) NOT NULL,
         qty INT NOT NULL,
         PRIMARY KEY (order_id, line),
         KEY (created_at)
       ) ENGINE=InnoDB`,
    );
    for (let order = 1; order <= 3; order++) {
      for (let line = 1; line <= 2; line++) {
        await fx.query(`INSERT INTO \`${table}\` VALUES (?, ?, ?, ?, ?)`, [
          order,
          line,
          `2024-07-06 0${order}:00:00`,
          `sku-${line}`,
          line,
        ]);
      }
    }
    await fx.query(`INSERT INTO \`${table}\` VALUES (9, 1, '2024-07-07 01:00:00', 'other', 1)`);
    await fx.copy(table, "2024-07-06");
    await fx.query(`UPDATE \`${table}\` SET qty = 5 WHERE order_id = 2 AND line = 1`);
    const before = await rowsOf(table, "order_id, line");

    const error = await refusal(
      cleanDay(fx.deps({ settings: { chunkRows: 2 } }), cleanTask(table, "2024-07-06")),
    );

    expect(error.reason).toBe("changed");
    expect(error.message).toMatch(/rows changed/);
    expect(await rowsOf(table, "order_id, line")).toEqual(before);

    // Put back as copied, the day cleans: by filter-value chunks, exactly its rows.
    await fx.query(`UPDATE \`${table}\` SET qty = 1 WHERE order_id = 2 AND line = 1`);
    const report = await cleanDay(fx.deps({ settings: { chunkRows: 2 } }), cleanTask(table, "2024-07-06"));
    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 6, chunks: 3 });
    expect(await rowsOf(table, "order_id, line")).toEqual([before[6]]);
  });

  it("a table without a key: one changed row refuses the day", async () => {
    const table = uniqueName("events");
    await fx.query(
      `CREATE TABLE \`${table}\` (created_at DATETIME NOT NULL, kind VARCHAR(16) NOT NULL, payload TEXT NULL) ENGINE=InnoDB`,
    );
    for (let i = 1; i <= 4; i++) {
      await fx.query(`INSERT INTO \`${table}\` VALUES (?, 'click', ?)`, [`2024-07-08 0${i}:00:00`, `p${i}`]);
    }
    await fx.copy(table, "2024-07-08");
    await fx.query(`UPDATE \`${table}\` SET payload = 'p3-edited' WHERE payload = 'p3'`);
    const before = await rowsOf(table, "created_at");

    const error = await refusal(cleanDay(fx.deps(), cleanTask(table, "2024-07-08")));

    expect(error.reason).toBe("changed");
    expect(error.message).toMatch(/rows changed/);
    expect(await rowsOf(table, "created_at")).toEqual(before);
    expect(before).toHaveLength(4);
  });
});

describe("a day copied before content fingerprints", () => {
  it("is refused as not-fingerprinted; nothing is deleted", async () => {
    const table = await fx.ordersTable(["2024-07-18"]);
    await fx.copy(table, "2024-07-18");
    const record = await fx.ledger.copiedDay(table, "2024-07-18");
    if (!record) throw new Error("no record");
    expect(record.figures.fingerprint).toMatch(/^\d+$/);
    const { fingerprint: _, ...figures } = record.figures;
    await fx.ledger.recordCopiedDay(table, { ...record, figures });
    const stored = JSON.parse((await fx.redis.hget(`archiver:copied:${table}`, "2024-07-18")) ?? "{}");
    expect(stored.figures).not.toHaveProperty("fingerprint");
    const before = await rowsOf(table);

    const error = await refusal(cleanDay(fx.deps(), cleanTask(table, "2024-07-18")));

    expect(error.reason).toBe("not-fingerprinted");
    expect(error.message).toMatch(/copied before content fingerprints were recorded/);
    expect(await rowsOf(table)).toEqual(before);
    expect(before).toHaveLength(3);
  });
});

describe("a kill in the middle of a content-checked delete", () => {
  it("a row of a remaining chunk changed while the task was down: the retry stops at that chunk", async () => {
    const table = await fx.keyedTable(["2024-07-29"], 6);
    await fx.copy(table, "2024-07-29");
    const settings = { chunkRows: 2 };
    await expect(
      cleanDay(
        fx.deps({ deleter: failAfter(fx.deleter, 2, "before"), settings }),
        cleanTask(table, "2024-07-29"),
      ),
    ).rejects.toThrow("killed");
    expect(await fx.idsOn(table, "2024-07-29")).toEqual(["3", "4", "5", "6"]);
    await fx.query(`UPDATE \`${table}\` SET note = 'edited while away' WHERE id = 6`);

    const error = await refusal(cleanDay(fx.deps({ settings }), cleanTask(table, "2024-07-29")));

    expect(error.reason).toBe("changed");
    expect(error.message).toMatch(/id 5\.\.6: rows changed since verification/);
    expect(await fx.idsOn(table, "2024-07-29")).toEqual(["5", "6"]);
    const [row] = await fx.query<{ note: string }>(`SELECT note FROM \`${table}\` WHERE id = 6`);
    expect(row?.note).toBe("edited while away");
  });
});
