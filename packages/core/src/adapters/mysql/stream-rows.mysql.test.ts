import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidInputError } from "../../errors";
import type { TableSchema } from "../../model/table-schema";
import type { SourceDatabase } from "../../ports/source-database";
import { createTestDatabase, type TestDatabase } from "../../testing/test-services";
import { createMysqlPool, type MysqlPool } from "./create-mysql-pool";
import { createMysqlSourceDatabase } from "./mysql-source-database";
import { streamRows } from "./stream-rows";

const BIG_DAY = "2024-05-01";
const BIG_DAY_ROWS = 20_000;

let db: TestDatabase;
let pool: MysqlPool;
let source: SourceDatabase;
let schema: TableSchema;

beforeAll(async () => {
  db = await createTestDatabase();
  // A padded row makes the big day several MB, more than socket buffers hold,
  // so an early stop leaves the server with rows still to send.
  await db.connection.query(`
    CREATE TABLE rows_by_day (
      id INT UNSIGNED NOT NULL PRIMARY KEY, at DATETIME(6) NOT NULL, pad VARCHAR(255) NOT NULL, KEY (at));
    INSERT INTO rows_by_day
      SELECT seq, '2024-04-30 00:00:00' + INTERVAL seq SECOND, REPEAT('x', 200) FROM seq_1_to_25;
    INSERT INTO rows_by_day
      SELECT 1000 + seq, '${BIG_DAY} 00:00:00' + INTERVAL (seq * 4) SECOND, REPEAT('y', 250)
      FROM seq_1_to_${BIG_DAY_ROWS};`);
  pool = createMysqlPool({ url: db.url, password: undefined }, { connectionLimit: 2 });
  source = createMysqlSourceDatabase(pool);
  const described = await source.describeTable("rows_by_day");
  if (!described) throw new Error("rows_by_day not found");
  schema = described;
});

afterAll(async () => {
  await source?.close();
  await db?.drop();
});

/** Fails instead of hanging when the pool has no connection left to give. */
function withinSeconds<T>(seconds: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`still waiting after ${seconds}s: pool leaked`)),
      seconds * 1000,
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** The pool, counting the rows mysql2 hands to the stream's query. */
function countingRows(inner: MysqlPool, received: { rows: number }): MysqlPool {
  return {
    query: (options, values) => inner.query(options, values),
    end: () => inner.end(),
    async getConnection() {
      const pooled = await inner.getConnection();
      const core = pooled.connection as {
        query(...args: unknown[]): { on(e: string, f: () => void): unknown };
      };
      const connection = new Proxy(core, {
        get(target, property) {
          if (property === "query") {
            return (...args: unknown[]) => {
              const query = target.query(...args);
              query.on("result", () => received.rows++);
              return query;
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

describe("streamDay batches", () => {
  it("respects the batch size and streams the whole day", async () => {
    const stream = source.streamDay(schema, "at", "2024-04-30", 10);
    const sizes: number[] = [];
    const ids: unknown[] = [];
    for await (const batch of stream.batches) {
      sizes.push(batch.length);
      ids.push(...batch.map((row) => row[0]));
    }
    expect(sizes).toEqual([10, 10, 5]);
    expect(ids).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(stream.stats()).toMatchObject({ rows: 25, zeroDates: 0 });
    expect(stream.stats().bytes).toBeGreaterThan(25 * 200);
  });

  it("streams a day many batches long completely, in filter order", async () => {
    const stream = source.streamDay(schema, "at", BIG_DAY, 1000);
    let rows = 0;
    let batches = 0;
    let previous = "";
    let ordered = true;
    for await (const batch of stream.batches) {
      batches++;
      expect(batch.length).toBeLessThanOrEqual(1000);
      for (const row of batch) {
        const at = String(row[1]);
        if (at < previous) ordered = false;
        previous = at;
        rows++;
      }
    }
    expect({ rows, batches, ordered }).toEqual({
      rows: BIG_DAY_ROWS,
      batches: BIG_DAY_ROWS / 1000,
      ordered: true,
    });
    expect(stream.stats().rows).toBe(BIG_DAY_ROWS);
    expect(stream.stats().bytes).toBeGreaterThan(BIG_DAY_ROWS * 250);
  });

  it("reads nothing and takes no connection until iterated", async () => {
    source.streamDay(schema, "at", BIG_DAY, 100);
    const [rows] = await withinSeconds(5, pool.query({ sql: "SELECT 1", rowsAsArray: true }));
    expect(rows).toEqual([[1]]);
  });

  it("reads ahead at most one batch while the consumer is busy", async () => {
    const received = { rows: 0 };
    const counting = createMysqlSourceDatabase(countingRows(pool, received));
    const stream = counting.streamDay(schema, "at", BIG_DAY, 100);
    const batches = stream.batches[Symbol.asyncIterator]();
    expect((await batches.next()).value).toHaveLength(100);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The batch handed out, one waiting, one being filled: never the whole day.
    expect(received.rows).toBeLessThanOrEqual(300);
    await batches.return?.();
  });

  it("gives back the connection when the consumer stops early", async () => {
    const firstBatches = await withinSeconds(
      20,
      (async () => {
        const sizes: number[] = [];
        for (let i = 0; i < 12; i++) {
          const stream = source.streamDay(schema, "at", BIG_DAY, 100);
          for await (const batch of stream.batches) {
            sizes.push(batch.length);
            break;
          }
        }
        return sizes;
      })(),
    );
    expect(firstBatches).toEqual(Array(12).fill(100));
    const [rows] = await withinSeconds(
      5,
      pool.query({ sql: "SELECT COUNT(*) FROM rows_by_day", rowsAsArray: true }),
    );
    expect(rows).toEqual([[String(25 + BIG_DAY_ROWS)]]);
  });

  it("stops the server's query when the consumer stops early", async () => {
    const stream = source.streamDay(schema, "at", BIG_DAY, 100);
    for await (const _ of stream.batches) break;
    const running = async () => {
      const [rows] = await db.connection.query(
        "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID() AND INFO LIKE 'SELECT %rows_by_day%'",
        [db.name],
      );
      return Number((rows as { n: unknown }[])[0]?.n);
    };
    let left = await running();
    for (let i = 0; i < 50 && left > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      left = await running();
    }
    expect(left).toBe(0);
  });

  it("gives back the connection when the read fails", async () => {
    const gone: TableSchema = { ...schema, name: "no_such_table" };
    for (let i = 0; i < 4; i++) {
      const stream = source.streamDay(gone, "at", BIG_DAY, 100);
      await expect(stream.batches[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(InvalidInputError);
    }
    const [rows] = await withinSeconds(5, pool.query({ sql: "SELECT 1", rowsAsArray: true }));
    expect(rows).toEqual([[1]]);
  });

  it("asks its question and streams the chosen statement in one snapshot, then gives the connection back", async () => {
    const seen: unknown[][] = [];
    const stream = streamRows(pool, {
      sql: "SELECT 'not this one'",
      values: [],
      batchRows: 100,
      zeroDateColumns: [],
      context: { table: "rows_by_day" },
      choose: async (ask) => {
        seen.push(...(await ask({ sql: "SELECT COUNT(*) FROM rows_by_day WHERE id < ?", values: [1000] })));
        // Written by another session after the question: the snapshot must not see it.
        await db.connection.query("INSERT INTO rows_by_day VALUES (26, '2024-04-30 01:00:00', 'late')");
        return { sql: "SELECT id FROM rows_by_day WHERE id < ? ORDER BY id", values: [1000] };
      },
    });
    try {
      const ids: unknown[] = [];
      for await (const batch of stream.batches) ids.push(...batch.map((row) => row[0]));
      expect(seen.map((row) => Number(row[0]))).toEqual([25]);
      expect(ids).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
      await withinSeconds(
        5,
        Promise.all([pool.getConnection(), pool.getConnection()]).then((cs) => cs.map((c) => c.release())),
      );
    } finally {
      await db.connection.query("DELETE FROM rows_by_day WHERE id = 26");
    }
  });

  it("refuses a batch size that is not a positive integer", () => {
    expect(() => source.streamDay(schema, "at", BIG_DAY, 0)).toThrow(RangeError);
    expect(() => source.streamDay(schema, "at", BIG_DAY, 1.5)).toThrow(RangeError);
  });
});
