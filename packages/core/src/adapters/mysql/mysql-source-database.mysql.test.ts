import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { CalendarDay } from "../../domain/days/calendar-day";
import type { TableSchema } from "../../domain/types/table-schema";
import { InvalidInputError, TransientError } from "../../errors";
import type { SourceDatabase } from "../../ports/source-database";
import { createTestDatabase, type TestDatabase } from "../../testing/test-services";
import { createMysqlPool } from "./create-mysql-pool";
import {
  dayFiguresQuery,
  dayKeyBoundsQuery,
  dayRowsByKeyQuery,
  dayRowsQuery,
  firstValueQuery,
} from "./day-queries";
import { createMysqlSourceDatabase } from "./mysql-source-database";

let db: TestDatabase;
let source: SourceDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.connection.query(`
    CREATE TABLE events (id BIGINT UNSIGNED NOT NULL PRIMARY KEY, at DATETIME(6) NULL, KEY (at));
    CREATE TABLE empty_events LIKE events;
    CREATE TABLE plain (id INT NOT NULL PRIMARY KEY, at DATETIME NOT NULL);
    CREATE TABLE pairs (a INT NOT NULL, b INT NOT NULL, at DATETIME NOT NULL, PRIMARY KEY (a, b));
    CREATE TABLE woven (id INT NOT NULL PRIMARY KEY, at DATETIME NOT NULL, KEY (at));
    INSERT INTO woven SELECT seq, IF(seq % 2 = 1, '2024-06-01 10:00:00', '2024-06-02 10:00:00') - INTERVAL seq SECOND
      FROM seq_1_to_40;
    INSERT INTO woven VALUES (41, '2024-05-31 23:59:59.999999'), (42, '2024-06-02 00:00:00');
    INSERT INTO events VALUES
      (1, '2024-01-01 00:00:00.000000'), (2, '2024-01-01 12:00:00'),
      (3, '2024-01-05 23:59:59.999999'), (4, '2024-01-06 00:00:00.000000'),
      (5, '2024-02-10 08:00:00'), (6, '2024-02-29 23:59:59.999999'), (7, '2024-03-01 00:00:00'),
      (18446744073709551615, '2024-04-01 01:00:00'), (18446744073709551614, '2024-04-01 02:00:00'),
      (8, '2024-04-01 03:00:00'), (9, NULL);
    SET SESSION sql_mode = '';
    INSERT INTO events VALUES
      (100, '0000-00-00 00:00:00'), (101, '2023-06-00 10:00:00'), (102, '2023-00-15 00:00:00'),
      (103, '2024-03-00 12:00:00');
    SET SESSION sql_mode = DEFAULT;
    INSERT INTO plain VALUES (1, '2024-01-01 10:00:00'), (2, '2024-01-02 10:00:00');
    INSERT INTO pairs VALUES (1, 1, '2024-01-01 10:00:00');`);
  source = createMysqlSourceDatabase(
    createMysqlPool({ url: db.url, password: undefined }, { connectionLimit: 2 }),
  );
});

afterAll(async () => {
  await source?.close();
  await db?.drop();
});

async function describe_(table: string): Promise<TableSchema> {
  const schema = await source.describeTable(table);
  if (!schema) throw new Error(`${table} not found`);
  return schema;
}

async function idsOf(table: string, day: CalendarDay): Promise<string[]> {
  const stream = source.streamDay(await describe_(table), "at", day, 1000);
  const ids: string[] = [];
  for await (const batch of stream.batches) ids.push(...batch.map((row) => String(row[0])));
  return ids;
}

async function explain(query: {
  sql: string;
  values: readonly string[];
}): Promise<Record<string, unknown>[]> {
  const [rows] = await db.connection.query(`EXPLAIN ${query.sql}`, [...query.values]);
  return rows as Record<string, unknown>[];
}

describe("firstDayWithRows", () => {
  const first = (from: string, before: string, table = "events") =>
    source.firstDayWithRows(table, "at", from, before);

  it("finds the next day with rows across gaps", async () => {
    expect(await first("2024-01-01", "2025-01-01")).toBe("2024-01-01");
    expect(await first("2024-01-02", "2025-01-01")).toBe("2024-01-05");
    expect(await first("2024-01-07", "2025-01-01")).toBe("2024-02-10");
    expect(await first("2024-03-02", "2025-01-01")).toBe("2024-04-01");
    expect(await first("2024-04-02", "2025-01-01")).toBeUndefined();
  });

  it("includes `from` and excludes `before`", async () => {
    expect(await first("2024-01-05", "2024-01-06")).toBe("2024-01-05");
    expect(await first("2024-01-07", "2024-02-10")).toBeUndefined();
    expect(await first("2024-01-07", "2024-02-11")).toBe("2024-02-10");
    expect(await first("2024-02-10", "2024-02-10")).toBeUndefined();
  });

  it("steps over zero and partial zero dates, which name no day", async () => {
    expect(await first("1000-01-01", "2024-01-01")).toBeUndefined();
    expect(await first("2023-01-01", "2025-01-01")).toBe("2024-01-01");
    expect(await first("2024-03-01", "2024-04-02")).toBe("2024-03-01");
  });

  it("probes on past a partial zero date once, however many probes of a window ran into it", async () => {
    // Every day from 2023-05-20 to 2023-05-31 first meets 2023-06-00 10:00:00, which names no day.
    const froms = Array.from({ length: 12 }, (_, i) => `2023-05-${String(20 + i).padStart(2, "0")}`);
    const probesOn = vi.spyOn(source, "firstDayWithRows");
    try {
      const firsts = await source.firstDaysWithRows("events", "at", [...froms, "2024-01-02"], "2025-01-01");
      expect(firsts).toEqual([...froms.map(() => "2024-01-01"), "2024-01-05"]);
      expect(probesOn.mock.calls).toEqual([["events", "at", "2023-06-01", "2025-01-01"]]);
    } finally {
      probesOn.mockRestore();
    }
  });

  it("finds nothing in an empty table", async () => {
    expect(await first("1000-01-01", "9999-12-31", "empty_events")).toBeUndefined();
  });

  it("is one index probe on an indexed column, whatever the table's size", async () => {
    const plan = await explain(firstValueQuery("events", "at", "2024-01-01", "2025-01-01"));
    expect(plan).toHaveLength(1);
    expect(plan[0]?.Extra).toBe("Select tables optimized away");
  });

  it("names a missing table or column as invalid input", async () => {
    await expect(first("2024-01-01", "2025-01-01", "no_such_table")).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    await expect(source.firstDayWithRows("events", "nope", "2024-01-01", "2025-01-01")).rejects.toMatchObject(
      {
        field: "column",
      },
    );
  });
});

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
    expect(await idsOf("woven", "2024-06-02")).toEqual([
      ...Array.from({ length: 20 }, (_, i) => String(2 * i + 2)),
      "42",
    ]);
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

describe("errors", () => {
  it("refuses a filter column the schema does not have", async () => {
    const events = await describe_("events");
    expect(() => source.streamDay(events, "nope", "2024-01-01", 10)).toThrow(InvalidInputError);
    await expect(source.dayFigures(events, "nope", "2024-01-01")).rejects.toBeInstanceOf(InvalidInputError);
  });

  it("reports an unreachable server as transient", async () => {
    const unreachable = createMysqlSourceDatabase(
      createMysqlPool(
        { url: "mysql://root@127.0.0.1:1/none", password: undefined },
        { connectTimeout: 2000 },
      ),
    );
    try {
      await expect(unreachable.describeTable("events")).rejects.toBeInstanceOf(TransientError);
      await expect(
        unreachable.firstDayWithRows("events", "at", "2024-01-01", "2024-02-01"),
      ).rejects.toBeInstanceOf(TransientError);
      const events = await describe_("events");
      await expect(unreachable.dayFigures(events, "at", "2024-01-01")).rejects.toBeInstanceOf(TransientError);
      const stream = unreachable.streamDay(events, "at", "2024-01-01", 10);
      await expect(stream.batches[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(TransientError);
    } finally {
      await unreachable.close();
    }
  });
});

describe("describeTable after a schema change", () => {
  it("sees every change to columns and indexes, invisible columns included, and a dropped table", async () => {
    await db.connection.query("CREATE TABLE shifting (id INT NOT NULL PRIMARY KEY, at DATETIME NOT NULL)");
    const names = async () => (await describe_("shifting")).columns.map((c) => `${c.name} ${c.columnType}`);
    expect(await names()).toEqual(["id int(11)", "at datetime"]);
    expect(await names()).toEqual(["id int(11)", "at datetime"]);
    await db.connection.query("ALTER TABLE shifting ADD COLUMN note VARCHAR(10) NULL");
    expect(await names()).toEqual(["id int(11)", "at datetime", "note varchar(10)"]);
    await db.connection.query("ALTER TABLE shifting ADD COLUMN hidden INT NULL INVISIBLE");
    expect(await names()).toContain("hidden int(11)");
    await db.connection.query("ALTER TABLE shifting MODIFY note VARCHAR(30) NULL");
    expect(await names()).toContain("note varchar(30)");
    expect((await describe_("shifting")).indexLeadingColumns).not.toContain("at");
    await db.connection.query("ALTER TABLE shifting ADD KEY (at)");
    expect((await describe_("shifting")).indexLeadingColumns).toContain("at");
    await db.connection.query("DROP TABLE shifting");
    expect(await source.describeTable("shifting")).toBeUndefined();
  });

  it("is not fooled by the AUTO_INCREMENT counter, which moves with every insert", async () => {
    await db.connection.query(
      "CREATE TABLE counting (id INT AUTO_INCREMENT PRIMARY KEY, at DATETIME NOT NULL) AUTO_INCREMENT = 5",
    );
    const first = await describe_("counting");
    await db.connection.query("INSERT INTO counting (at) VALUES (NOW()), (NOW())");
    expect(await describe_("counting")).toBe(first);
  });
});
