import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, describe_, explain, idsOf, source, sourceTables } from "../../testing/mysql-source-tables";
import { dayFiguresQuery, dayKeyBoundsQuery, dayRowsByKeyQuery, dayRowsQuery } from "./day-queries";

// Reading and counting a day; firstDayWithRows, errors and schema changes: mysql-source-database-*.mysql.test.ts.

beforeAll(sourceTables.create);
afterAll(sourceTables.drop);

describe("day bounds", () => {
  it("keeps the first and last microsecond of a day in that day", async () => {
    expect(await idsOf("events", "2024-01-01")).toEqual(["1", "2"]);
    expect(await idsOf("events", "2024-01-05")).toEqual(["3"]);
    expect(await idsOf("events", "2024-01-06")).toEqual(["4"]);
  });

  it("leaves partial zero dates out of the month's last day", async () => {
    expect(await idsOf("events", "2024-02-29")).toEqual(["6"]);
    expect(await idsOf("events", "2024-03-01")).toEqual(["7"]);
    expect(await idsOf("events", "2022-12-31")).toEqual([]);
    expect(await idsOf("events", "2023-05-31")).toEqual([]);
  });

  it("streams an indexed day with a range scan in index order, without a filesort", async () => {
    const plan = await explain(dayRowsQuery(await describe_("events"), "at", "2024-01-01"));
    expect(plan[0]).toMatchObject({ type: "range", key: "at" });
    expect(String(plan[0]?.Extra)).not.toContain("filesort");
  });

  it("streams a day with dense integer keys along the primary key, only that day's rows", async () => {
    // Odd ids on 2024-06-01, even ids on 2024-06-02, one row each side of the day's edges.
    const woven = await describe_("woven");
    const key = woven.columns[0];
    if (!key) throw new Error("no key");
    const [bounds] = (await db.connection.query(
      { sql: dayKeyBoundsQuery(woven, "at", "2024-06-01", key).sql, rowsAsArray: true },
      [...dayKeyBoundsQuery(woven, "at", "2024-06-01", key).values],
    )) as unknown as [unknown[][]];
    expect(bounds[0]?.map(String)).toEqual(["1", "39", "20"]);
    const byKey = dayRowsByKeyQuery(woven, "at", "2024-06-01", key, { min: "1", max: "39" });
    expect((await explain(byKey))[0]).toMatchObject({ type: "range", key: "PRIMARY" });

    // Key order, not filter order (times fall as ids rise): the day was read along the key.
    const expected = Array.from({ length: 20 }, (_, i) => String(2 * i + 1));
    expect(await idsOf("woven", "2024-06-01")).toEqual(expected);
    // The table's days are small: the next is read by its filter column alone, latest id first.
    expect(await idsOf("woven", "2024-06-02")).toEqual([
      "42",
      ...Array.from({ length: 20 }, (_, i) => String(40 - 2 * i)),
    ]);
  });

  it("asks for a day's key bounds again once the table's last day read was not small", async () => {
    // Times fall as ids rise, so the order tells how a day was read: ids rising, along the key.
    await db.connection.query(`
      CREATE TABLE tides (id INT NOT NULL PRIMARY KEY, at DATETIME NOT NULL, KEY (at));
      INSERT INTO tides SELECT seq, '2024-07-01 12:00:00' - INTERVAL seq SECOND FROM seq_1_to_10;
      INSERT INTO tides SELECT seq, '2024-07-02 12:00:00' - INTERVAL seq SECOND FROM seq_11_to_1510;
      INSERT INTO tides SELECT seq, '2024-07-03 12:00:00' - INTERVAL seq SECOND FROM seq_1511_to_1520;
      INSERT INTO tides SELECT seq, '2024-07-04 12:00:00' - INTERVAL seq SECOND FROM seq_1521_to_1530;`);
    const ids = (first: number, last: number) =>
      Array.from({ length: last - first + 1 }, (_, i) => String(first + i));
    expect(await idsOf("tides", "2024-07-01")).toEqual(ids(1, 10));
    expect(await idsOf("tides", "2024-07-03")).toEqual(ids(1511, 1520).reverse());
    expect(await idsOf("tides", "2024-07-02")).toEqual(ids(11, 1510).reverse());
    expect(await idsOf("tides", "2024-07-04")).toEqual(ids(1521, 1530));
  });

  it("reads a day whose keys are sparse through the filter column's index instead", async () => {
    expect(await idsOf("events", "2024-04-01")).toEqual([
      "18446744073709551615",
      "18446744073709551614",
      "8",
    ]);
  });

  it("streams a day of a table without an index on the filter column, unordered", async () => {
    expect(await idsOf("plain", "2024-01-02")).toEqual(["2"]);
    expect(dayRowsQuery(await describe_("plain"), "at", "2024-01-02").sql).not.toContain("ORDER BY");
  });
});

describe("dayFigures", () => {
  it("counts rows and sums a BIGINT UNSIGNED key exactly beyond 2^64", async () => {
    const figures = await source.dayFigures(await describe_("events"), "at", "2024-04-01");
    expect(figures).toEqual({
      rows: 3,
      fingerprint: expect.stringMatching(/^[1-9]\d*$/),
      key: {
        column: "id",
        count: 3,
        sum: (18446744073709551615n + 18446744073709551614n + 8n).toString(),
        min: "8",
        max: "18446744073709551615",
      },
    });
  });

  it("gives an empty day zero rows and a zero sum, and skips partial zero dates", async () => {
    const events = await describe_("events");
    expect(await source.dayFigures(events, "at", "2024-01-02")).toEqual({
      rows: 0,
      fingerprint: "0",
      key: { column: "id", count: 0, sum: "0", min: "", max: "" },
    });
    expect((await source.dayFigures(events, "at", "2024-02-29")).rows).toBe(1);
  });

  it("counts rows and content only when the key is not one integer column", async () => {
    expect(await source.dayFigures(await describe_("pairs"), "at", "2024-01-01")).toEqual({
      rows: 1,
      fingerprint: expect.stringMatching(/^[1-9]\d*$/),
    });
  });

  it("counts with the index, not a table scan", async () => {
    const events = await describe_("events");
    const plan = await explain(dayFiguresQuery(events, "at", "2024-04-01", "id"));
    expect(plan[0]).toMatchObject({ type: "range", key: "at" });
  });
});
