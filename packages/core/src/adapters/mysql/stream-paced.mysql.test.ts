import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TransientError } from "../../errors";
import type { CalendarDay } from "../../model/calendar-day";
import type { Row, TableSchema } from "../../model/table-schema";
import { createTestAccount, DOCUMENTED_GRANTS } from "../../testing/archiver-account";
import { createTestDatabase, type TestDatabase } from "../../testing/test-services";
import { createMysqlPool, type MysqlPool } from "./create-mysql-pool";
import { createMysqlSourceDatabase } from "./mysql-source-database";

// A paced copy (a rate cap, a nice ratio) must pace the server, not only the warehouse: one statement
// streaming the day would run ahead of its reader by whatever the connection's buffers hold, a whole day of a
// small table read at full speed. Paced, the day is read a batch's range of keys at a time, each statement
// asked for only when its batch is, in the snapshot of the day, with the same rows and figures.

let db: TestDatabase;
let pool: MysqlPool;
const DAY: CalendarDay = "2024-03-05";
const TABLE = "paced_rows";
const BATCH = 300;

beforeAll(async () => {
  db = await createTestDatabase("stream_paced");
  pool = createMysqlPool({ url: db.url, password: undefined }, { connectionLimit: 3 });
  await db.connection.query(
    `CREATE TABLE ${TABLE} (
       id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
       created_at DATETIME(6) NOT NULL,
       note VARCHAR(40) NULL,
       amount DECIMAL(10,2) NOT NULL,
       KEY (created_at)
     )`,
  );
  // 2,000 rows of the day on every other key from 1,000 (dense enough to be read along the key), NULLs among
  // them, and rows of the days around it inside the day's range of keys.
  await db.connection.query(
    `INSERT INTO ${TABLE}
     SELECT 1000 + seq * 2, '${DAY}' + INTERVAL seq SECOND, IF(seq MOD 7 = 0, NULL, CONCAT('n ', seq)), seq / 100
     FROM seq_0_to_1999`,
  );
  await db.connection.query(
    `INSERT INTO ${TABLE} VALUES (1001, '${DAY}' - INTERVAL 1 SECOND, 'before', 1), (2001, '${DAY}' + INTERVAL 1 DAY, 'after', 2)`,
  );
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

/** `base`, recording the statements its connections run through `query` (a streamed statement goes elsewhere). */
function watchedPool(statements: string[], threads: number[], base: MysqlPool = pool): MysqlPool {
  return Object.create(base, {
    getConnection: {
      value: async () => {
        const connection = await base.getConnection();
        threads.push((connection.connection as unknown as { threadId: number }).threadId);
        return new Proxy(connection, {
          get(target, property) {
            if (property === "query") {
              return (options: string | { sql: string }, ...rest: unknown[]) => {
                statements.push(typeof options === "string" ? options : options.sql);
                return (target.query as (...args: unknown[]) => unknown)(options, ...rest);
              };
            }
            const value = Reflect.get(target, property, target);
            return typeof value === "function" ? value.bind(target) : value;
          },
        });
      },
    },
  }) as MysqlPool;
}

async function schemaOf(): Promise<TableSchema> {
  const schema = await createMysqlSourceDatabase(pool).describeTable(TABLE);
  if (!schema) throw new Error(`${TABLE} is missing`);
  return schema;
}

async function readAll(paced: boolean) {
  const stream = createMysqlSourceDatabase(pool).streamDay(await schemaOf(), "created_at", DAY, BATCH, {
    paced,
  });
  const rows: Row[] = [];
  const sizes: number[] = [];
  for await (const batch of stream.batches) {
    rows.push(...batch);
    sizes.push(batch.length);
  }
  return { rows, sizes, stats: stream.stats() };
}

const pageStatements = (statements: readonly string[]) =>
  statements.filter((sql) => sql.startsWith("SELECT") && sql.includes("FORCE INDEX (PRIMARY)"));

describe("a paced read of a day", () => {
  it("reads the same rows, in key order, with the same fingerprint and key chunks as one statement", async () => {
    const paced = await readAll(true);
    const whole = await readAll(false);
    expect(paced.rows).toHaveLength(2000);
    expect(paced.rows).toEqual(whole.rows);
    expect(paced.stats.fingerprint).toBe(whole.stats.fingerprint);
    expect(paced.stats.chunks).toEqual(whole.stats.chunks);
    expect(paced.stats.rows).toBe(2000);
    expect(Math.max(...paced.sizes)).toBeLessThanOrEqual(BATCH);
    const day = await createMysqlSourceDatabase(pool).dayFigures(await schemaOf(), "created_at", DAY);
    expect(paced.stats.fingerprint).toBe(day.fingerprint);
  });

  it("asks the server for one batch's range of keys at a time, only when that batch is taken", async () => {
    const statements: string[] = [];
    const source = createMysqlSourceDatabase(watchedPool(statements, []));
    const stream = source.streamDay(await schemaOf(), "created_at", DAY, BATCH, { paced: true });
    const batches = stream.batches[Symbol.asyncIterator]();
    const first = await batches.next();
    expect(first.done).toBe(false);
    // The snapshot, the day's key bounds, and the first page: nothing of the rest of the day yet.
    expect(pageStatements(statements)).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pageStatements(statements)).toHaveLength(1);
    let taken = 1;
    while (!(await batches.next()).done) taken++;
    // Keys 1,000 to 4,998: 3,999 keys, 300 a statement.
    expect(pageStatements(statements)).toHaveLength(14);
    expect(taken).toBe(14);
    expect(statements.at(-1)).toBe("COMMIT");
  });

  it("pages a large day that follows small ones, which an unpaced read takes in one statement", async () => {
    const statements: string[] = [];
    const source = createMysqlSourceDatabase(watchedPool(statements, []));
    const schema = await schemaOf();
    // The day before holds one row: the source now takes this table's days for small ones.
    for await (const _batch of source.streamDay(schema, "created_at", "2024-03-04", BATCH).batches);
    const stream = source.streamDay(schema, "created_at", DAY, BATCH, { paced: true });
    let rows = 0;
    for await (const batch of stream.batches) rows += batch.length;
    expect(rows).toBe(2000);
    expect(pageStatements(statements)).toHaveLength(14);
  });

  it("reads the day as an account holding only the copy's documented grants", async () => {
    const account = await createTestAccount(db.name, DOCUMENTED_GRANTS.copy(db.name));
    const granted = createMysqlPool({ url: account.url, password: undefined }, { connectionLimit: 1 });
    try {
      const statements: string[] = [];
      const source = createMysqlSourceDatabase(watchedPool(statements, [], granted));
      const schema = await source.describeTable(TABLE);
      if (!schema) throw new Error(`${TABLE} is not visible to the account`);
      const stream = source.streamDay(schema, "created_at", DAY, BATCH, { paced: true });
      let rows = 0;
      for await (const batch of stream.batches) rows += batch.length;
      expect(rows).toBe(2000);
      expect(pageStatements(statements)).toHaveLength(14);
      expect(stream.stats().fingerprint).toBe((await readAll(false)).stats.fingerprint);
    } finally {
      await granted.end();
      await account.drop();
    }
  });

  it("fails with TransientError when its connection is killed between two batches, and leaves the pool usable", async () => {
    const statements: string[] = [];
    const threads: number[] = [];
    const source = createMysqlSourceDatabase(watchedPool(statements, threads));
    const stream = source.streamDay(await schemaOf(), "created_at", DAY, BATCH, { paced: true });
    const batches = stream.batches[Symbol.asyncIterator]();
    await batches.next();
    await db.connection.query(`KILL CONNECTION ${threads.at(-1)}`);
    const error = await batches.next().then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(TransientError);
    expect((await readAll(true)).rows).toHaveLength(2000);
  });
});
