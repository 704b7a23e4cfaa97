import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Row, TableSchema } from "../../model/table-schema";
import type { DayStream, SourceDatabase } from "../../ports/source-database";
import { createTestDatabase, type TestDatabase } from "../../testing/test-services";
import { createMysqlPool, type MysqlPool } from "./create-mysql-pool";
import { createMysqlSourceDatabase } from "./mysql-source-database";
import { streamRows } from "./stream-rows";

// A paced copy's day read along its primary key comes in slices of a batch's
// rows, each statement sent once the one before has been received, all in one
// snapshot; an unpaced one in one statement.

const DAY = "2024-03-01";
const DAY_ROWS = 1_000;

let db: TestDatabase;
let pool: MysqlPool;
let source: SourceDatabase;
let schema: TableSchema;
/** Statements the pool's connections were sent, the text of each. */
const sent: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  await db.connection.query(`
    CREATE TABLE sliced (
      id BIGINT UNSIGNED NOT NULL PRIMARY KEY, at DATETIME NOT NULL, note VARCHAR(40) NOT NULL, KEY (at));
    INSERT INTO sliced SELECT seq, '2024-02-29 12:00:00' + INTERVAL seq SECOND, 'before' FROM seq_1_to_5;
    INSERT INTO sliced
      SELECT 100 + seq, '${DAY} 00:00:00' + INTERVAL (seq * 60) SECOND, CONCAT('row ', seq)
      FROM seq_1_to_${DAY_ROWS};`);
  pool = countingStatements(createMysqlPool({ url: db.url, password: undefined }, { connectionLimit: 3 }));
  source = createMysqlSourceDatabase(pool);
  const described = await source.describeTable("sliced");
  if (!described) throw new Error("sliced not found");
  schema = described;
});

afterAll(async () => {
  await source?.close();
  await db?.drop();
});

/** The pool, keeping the text of every statement its streaming connections are sent. */
function countingStatements(inner: MysqlPool): MysqlPool {
  return {
    query: (options, values) => inner.query(options, values),
    end: () => inner.end(),
    async getConnection() {
      const pooled = await inner.getConnection();
      const core = pooled.connection as { query(...args: unknown[]): unknown };
      const connection = new Proxy(core, {
        get(target, property) {
          if (property === "query") {
            return (...args: unknown[]) => {
              sent.push(String((args[0] as { sql?: string }).sql ?? args[0]));
              return target.query(...args);
            };
          }
          const value = Reflect.get(target, property);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      return {
        query: (options, values) => pooled.query(options, values),
        release: () => pooled.release(),
        destroy: () => pooled.destroy(),
        connection,
      };
    },
  };
}

const rowStatements = () => sent.filter((sql) => sql.startsWith("SELECT") && sql.includes("FORCE INDEX"));

async function readAll(stream: DayStream): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const batch of stream.batches) rows.push(...batch);
  return rows;
}

describe("a day read along its key, in slices", () => {
  it("sends a slice only once the one before was received, and reads the same day as one statement", async () => {
    // A day larger than any batch, read first whole to learn the table's day size, then in slices of 100.
    const whole = source.streamDay(schema, "at", DAY, 5_000);
    const wholeRows = await readAll(whole);
    sent.length = 0;
    const sliced = source.streamDay(schema, "at", DAY, 100, { paced: true });
    const iterator = sliced.batches[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value).toHaveLength(100);
    // The server has been asked for a slice or two ahead of the consumer, not for the rest of the day.
    expect(rowStatements().length).toBeLessThanOrEqual(4);
    const rows: Row[] = [...(first.value as Row[])];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rows.push(...next.value);
    expect(rowStatements().length).toBeGreaterThanOrEqual(DAY_ROWS / 100);
    expect(rows.map((row) => String(row[0]))).toEqual(wholeRows.map((row) => String(row[0])));
    expect(rows.map((row) => String(row[0]))).toEqual(
      Array.from({ length: DAY_ROWS }, (_, i) => String(101 + i)),
    );
    expect(sliced.stats().fingerprint).toBe(whole.stats().fingerprint);
    expect(sliced.stats().chunks).toEqual(whole.stats().chunks);
    expect(sliced.stats().chunks?.reduce((sum, chunk) => sum + chunk.rows, 0)).toBe(DAY_ROWS);
  });

  it("reads every slice in the snapshot the first began: rows changed in between are not seen", async () => {
    const stream = source.streamDay(schema, "at", DAY, 100, { paced: true });
    const iterator = stream.batches[Symbol.asyncIterator]();
    const rows: Row[] = [...((await iterator.next()).value as Row[])];
    // Another session changes the day where later slices will read it.
    await db.connection.query(
      `DELETE FROM sliced WHERE id = 1050; UPDATE sliced SET note = 'changed' WHERE id = 990;
       INSERT INTO sliced VALUES (1101, '${DAY} 23:59:59', 'late')`,
    );
    try {
      for (let next = await iterator.next(); !next.done; next = await iterator.next())
        rows.push(...next.value);
      expect(rows).toHaveLength(DAY_ROWS);
      expect(rows.find((row) => String(row[0]) === "1050")).toBeDefined();
      expect(rows.find((row) => String(row[0]) === "990")?.[2]).toBe("row 890");
      expect(rows.find((row) => String(row[0]) === "1101")).toBeUndefined();
    } finally {
      await db.connection.query(
        `DELETE FROM sliced WHERE id = 1101; UPDATE sliced SET note = 'row 890' WHERE id = 990;
         INSERT INTO sliced VALUES (1050, '${DAY} 00:00:00' + INTERVAL (950 * 60) SECOND, 'row 950')`,
      );
    }
  });

  it("reads the day in one statement when the copy is not paced, letting the server read ahead", async () => {
    sent.length = 0;
    const rows = await readAll(source.streamDay(schema, "at", DAY, 100));
    expect(rows).toHaveLength(DAY_ROWS);
    expect(rowStatements()).toHaveLength(1);
  });

  it("fails the stream at a slice that fails, after the rows before it, and keeps the pool whole", async () => {
    const stream = streamRows(pool, {
      sql: "SELECT 'not this one'",
      values: [],
      batchRows: 2,
      zeroDateColumns: [],
      context: { table: "sliced" },
      choose: async () => ({
        sql: "SELECT 'not this one either'",
        values: [],
        slices: [
          { sql: "SELECT id FROM sliced WHERE id <= ? ORDER BY id", values: [3] },
          { sql: "SELECT id FROM no_such_table", values: [] },
        ],
      }),
    });
    const ids: unknown[] = [];
    await expect(
      (async () => {
        for await (const batch of stream.batches) ids.push(...batch.map((row) => row[0]));
      })(),
    ).rejects.toThrow(/no_such_table/);
    expect(ids.map(String)).toEqual(["1", "2"]);
    const connections = await Promise.all([pool.getConnection(), pool.getConnection(), pool.getConnection()]);
    for (const connection of connections) connection.release();
  });

  it("refuses slices outside a snapshot, where each would see the table at another moment", async () => {
    const stream = streamRows(pool, {
      sql: "SELECT 1",
      values: [],
      slices: [
        { sql: "SELECT 1", values: [] },
        { sql: "SELECT 2", values: [] },
      ],
      batchRows: 10,
      zeroDateColumns: [],
      context: { table: "sliced" },
    });
    await expect(stream.batches[Symbol.asyncIterator]().next()).rejects.toThrow(/snapshot/);
  });
});
