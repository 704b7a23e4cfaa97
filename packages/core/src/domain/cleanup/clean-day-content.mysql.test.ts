import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isFinalTaskError } from "../../errors";
import {
  afterPlanning,
  type CleanupFixture,
  cleanTask,
  createCleanupFixture,
  failAfter,
  refusal,
} from "../../testing/cleanup-fixture";
import { uniqueName } from "../../testing/test-services";
import type { CalendarDay } from "../days/calendar-day";
import { cleanDay } from "./clean-day";

let fx: CleanupFixture;

beforeAll(async () => {
  fx = await createCleanupFixture();
});

afterAll(async () => {
  await fx?.close();
});

/** Every row of `table`, every column, in a stable order (the table's own rows as MySQL holds them). */
async function rowsOf(table: string, orderBy = "created_at, id"): Promise<Record<string, unknown>[]> {
  return fx.query<Record<string, unknown>>(`SELECT * FROM \`${table}\` ORDER BY ${orderBy}`);
}

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

describe("cleanDay on a keyless table with duplicate rows", () => {
  async function duplicatesTable(day: CalendarDay): Promise<string> {
    const table = uniqueName("dups");
    await fx.query(
      `CREATE TABLE \`${table}\` (created_at DATETIME NOT NULL, kind VARCHAR(16) NOT NULL, n INT NULL) ENGINE=InnoDB`,
    );
    // Three identical rows, two more identical ones at another instant, one single row, and a neighbour day.
    await fx.query(
      `INSERT INTO \`${table}\` VALUES
         ('${day} 01:00:00', 'same', 1), ('${day} 01:00:00', 'same', 1), ('${day} 01:00:00', 'same', 1),
         ('${day} 02:00:00', 'pair', NULL), ('${day} 02:00:00', 'pair', NULL),
         ('${day} 03:00:00', 'single', 7),
         ('${day} 00:00:00' - INTERVAL 1 SECOND, 'before', 0)`,
    );
    return table;
  }

  it("copies and cleans every duplicate, in filter-value chunks, and nothing else", async () => {
    const table = await duplicatesTable("2024-07-10");
    await fx.copy(table, "2024-07-10");

    // Chunks of 2 rows never split an instant: {01:00 x3} {02:00 x2} {03:00}.
    const report = await cleanDay(fx.deps({ settings: { chunkRows: 2 } }), cleanTask(table, "2024-07-10"));

    expect(report).toMatchObject({ outcome: "cleaned", rowsDeleted: 6, chunks: 3 });
    expect(await rowsOf(table, "created_at")).toEqual([
      { created_at: "2024-07-09 23:59:59", kind: "before", n: 0 },
    ]);
  });

  it("one of three identical rows deleted after the copy: refused as rows gone, the other rows kept", async () => {
    const table = await duplicatesTable("2024-07-11");
    await fx.copy(table, "2024-07-11");
    await fx.query(`DELETE FROM \`${table}\` WHERE kind = 'same' LIMIT 1`);
    const before = await rowsOf(table, "created_at");

    const error = await refusal(cleanDay(fx.deps(), cleanTask(table, "2024-07-11")));

    expect(error.reason).toBe("changed");
    expect(error.message).toMatch(/rows gone: 1 row fewer than copied/);
    expect(await rowsOf(table, "created_at")).toEqual(before);
    expect(before).toHaveLength(6);
  });

  it("one identical row added after the copy: refused as rows added", async () => {
    const table = await duplicatesTable("2024-07-12");
    await fx.copy(table, "2024-07-12");
    await fx.query(`INSERT INTO \`${table}\` VALUES ('2024-07-12 02:00:00', 'pair', NULL)`);

    const error = await refusal(cleanDay(fx.deps(), cleanTask(table, "2024-07-12")));

    expect(error.reason).toBe("changed");
    expect(error.message).toMatch(/rows added: 1 row more than copied/);
    expect(await rowsOf(table, "created_at")).toHaveLength(8);
  });

  it("one duplicate changed into another duplicate (same count) is refused", async () => {
    const table = await duplicatesTable("2024-07-13");
    await fx.copy(table, "2024-07-13");
    // {same x3, pair x2} becomes {same x2, pair x3}: row count and instants unchanged.
    await fx.query(
      `UPDATE \`${table}\` SET created_at = '2024-07-13 02:00:00', kind = 'pair', n = NULL WHERE kind = 'same' LIMIT 1`,
    );
    const before = await rowsOf(table, "created_at, kind");

    const error = await refusal(cleanDay(fx.deps(), cleanTask(table, "2024-07-13")));

    expect(error.reason).toBe("changed");
    expect(error.message).toMatch(/rows changed/);
    expect(await rowsOf(table, "created_at, kind")).toEqual(before);
  });
});

describe("a change between verification and a chunk's delete", () => {
  it("stops at the changed chunk: earlier chunks deleted, that chunk and later ones kept as updated", async () => {
    const table = await fx.keyedTable(["2024-07-15"], 8, { idStep: 10 });
    await fx.copy(table, "2024-07-15");
    // Chunks of 2 keys: [10,20] [30,40] [50,60] [70,80]; 50 changes once the plan is made.
    const deleter = afterPlanning(fx.deleter, () =>
      fx.query(`UPDATE \`${table}\` SET note = 'edited', qty = 1000 WHERE id = 50`),
    );

    const error = await refusal(
      cleanDay(fx.deps({ deleter, settings: { chunkRows: 2 } }), cleanTask(table, "2024-07-15")),
    );

    expect(error.reason).toBe("changed");
    expect(isFinalTaskError(error)).toBe(true);
    expect(error.message).toMatch(/id 50\.\.60: rows changed since verification: planned 2 rows/);
    expect(error.message).toMatch(/4 rows of the day were deleted before it/);
    expect(await fx.idsOn(table, "2024-07-15")).toEqual(["50", "60", "70", "80"]);
    const [changed] = await fx.query<{ qty: number; note: string }>(
      `SELECT qty, note FROM \`${table}\` WHERE id = 50`,
    );
    expect(changed).toEqual({ qty: 1000, note: "edited" });
    expect(await fx.deps().state.read({ table, day: "2024-07-15" })).toMatchObject({
      status: "deleting",
      chunksDone: 2,
      rowsDeleted: 4,
    });

    // A retry resumes at the changed chunk and refuses it again: 50 is never deleted.
    await refusal(cleanDay(fx.deps({ settings: { chunkRows: 2 } }), cleanTask(table, "2024-07-15")));
    expect(await fx.idsOn(table, "2024-07-15")).toEqual(["50", "60", "70", "80"]);
  });

  it("a keyless table: a row of a later chunk changed after planning stops that chunk", async () => {
    const table = uniqueName("events");
    await fx.query(
      `CREATE TABLE \`${table}\` (created_at DATETIME NOT NULL, note VARCHAR(16)) ENGINE=InnoDB`,
    );
    for (let i = 1; i <= 6; i++) {
      await fx.query(`INSERT INTO \`${table}\` VALUES (?, ?)`, [`2024-07-16 0${i}:00:00`, `n${i}`]);
    }
    await fx.copy(table, "2024-07-16");
    const deleter = afterPlanning(fx.deleter, () =>
      fx.query(`UPDATE \`${table}\` SET note = 'edited' WHERE note = 'n4'`),
    );

    const error = await refusal(
      cleanDay(fx.deps({ deleter, settings: { chunkRows: 2 } }), cleanTask(table, "2024-07-16")),
    );

    expect(error.reason).toBe("changed");
    expect(error.message).toMatch(
      /created_at 2024-07-16 03:00:00\.\.2024-07-16 04:00:00: rows changed since verification/,
    );
    expect(await rowsOf(table, "created_at")).toEqual([
      { created_at: "2024-07-16 03:00:00", note: "n3" },
      { created_at: "2024-07-16 04:00:00", note: "edited" },
      { created_at: "2024-07-16 05:00:00", note: "n5" },
      { created_at: "2024-07-16 06:00:00", note: "n6" },
    ]);
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
  it("keyed: the retry resumes and deletes exactly the day's rows", async () => {
    const table = await fx.keyedTable(["2024-07-20", "2024-07-21", "2024-07-22"], 7);
    await fx.copy(table, "2024-07-21");
    const others = [...(await fx.idsOn(table, "2024-07-20")), ...(await fx.idsOn(table, "2024-07-22"))];
    const settings = { chunkRows: 3 };

    await expect(
      cleanDay(fx.deps({ deleter: failAfter(fx.deleter, 2), settings }), cleanTask(table, "2024-07-21")),
    ).rejects.toThrow("killed");
    expect(await fx.idsOn(table, "2024-07-21")).toEqual(["14"]);

    const report = await cleanDay(fx.deps({ settings }), cleanTask(table, "2024-07-21"));

    expect(report).toMatchObject({ outcome: "cleaned", resumed: true, rowsDeleted: 3 + 1, rowsFoundGone: 3 });
    expect(await fx.ids(table)).toEqual(others);
  });

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

  it("keyless: a kill after a chunk committed, then a retry, deletes exactly the day's rows", async () => {
    const table = uniqueName("events");
    await fx.query(
      `CREATE TABLE \`${table}\` (created_at DATETIME NOT NULL, note VARCHAR(16)) ENGINE=InnoDB`,
    );
    for (const day of ["2024-07-23", "2024-07-24", "2024-07-25"]) {
      for (let i = 1; i <= 5; i++) {
        await fx.query(`INSERT INTO \`${table}\` VALUES (?, ?)`, [`${day} 0${i}:00:00`, `${day}/${i}`]);
      }
    }
    // Duplicates too: a chunk of identical rows must go as a whole.
    await fx.query(`INSERT INTO \`${table}\` VALUES ('2024-07-24 03:00:00', '2024-07-24/3')`);
    await fx.copy(table, "2024-07-24");
    const others = (await rowsOf(table, "created_at")).filter(
      (row) => !String(row.note).startsWith("2024-07-24"),
    );
    const settings = { chunkRows: 2 };

    await expect(
      cleanDay(fx.deps({ deleter: failAfter(fx.deleter, 2), settings }), cleanTask(table, "2024-07-24")),
    ).rejects.toThrow("killed");
    // Chunks {01,02} {03,03} {04,05}: two committed.
    expect(
      (await rowsOf(table, "created_at")).filter((row) => String(row.note).startsWith("2024-07-24")),
    ).toEqual([
      { created_at: "2024-07-24 04:00:00", note: "2024-07-24/4" },
      { created_at: "2024-07-24 05:00:00", note: "2024-07-24/5" },
    ]);

    const report = await cleanDay(fx.deps({ settings }), cleanTask(table, "2024-07-24"));

    expect(report).toMatchObject({ outcome: "cleaned", resumed: true, rowsDeleted: 2 + 2, rowsFoundGone: 2 });
    expect(await rowsOf(table, "created_at")).toEqual(others);
  });
});
