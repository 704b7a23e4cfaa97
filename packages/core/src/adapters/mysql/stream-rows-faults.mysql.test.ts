import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TransientError } from "../../errors";
import type { TableSchema } from "../../model/table-schema";
import type { SourceDatabase } from "../../ports/source-database";
import { startTcpProxy, type TcpProxy, throughProxy } from "../../testing/tcp-proxy";
import { createTestDatabase, type TestDatabase, testMysqlServerUrl } from "../../testing/test-services";
import { createMysqlPool, type MysqlPool } from "./create-mysql-pool";
import { mapMysqlError } from "./map-mysql-error";
import { createMysqlSourceDatabase } from "./mysql-source-database";
import { streamRows } from "./stream-rows";

/**
 * Every read ends: the source reached through a TCP proxy in this process,
 * which the tests cut (the server dying) or freeze (a path that drops packets
 * without closing the connection). Only connections open at that moment are
 * hurt; later ones are forwarded, so a retry finds a healthy path.
 */
const BIG_DAY = "2024-05-01";
const BIG_DAY_ROWS = 20_000;
const IDLE_MS = 1_000;
const QUERY_MS = 1_500;

let db: TestDatabase;
let proxy: TcpProxy;
let pool: MysqlPool;
let source: SourceDatabase;
let schema: TableSchema;

beforeAll(async () => {
  db = await createTestDatabase();
  // Rows of a few hundred bytes: a day of several MB, more than socket buffers hold.
  await db.connection.query(`
    CREATE TABLE rows_by_day (
      id INT UNSIGNED NOT NULL PRIMARY KEY, at DATETIME(6) NOT NULL, pad VARCHAR(255) NOT NULL, KEY (at));
    INSERT INTO rows_by_day
      SELECT seq, '${BIG_DAY} 00:00:00' + INTERVAL (seq * 4) SECOND, REPEAT('y', 250)
      FROM seq_1_to_${BIG_DAY_ROWS};`);
  const server = new URL(testMysqlServerUrl);
  proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 3306) });
  pool = createMysqlPool(
    {
      url: throughProxy(db.url, proxy),
      password: undefined,
      queryTimeoutMs: QUERY_MS,
      streamIdleTimeoutMs: IDLE_MS,
    },
    { connectionLimit: 2 },
  );
  source = createMysqlSourceDatabase(pool);
  const described = await source.describeTable("rows_by_day");
  if (!described) throw new Error("rows_by_day not found");
  schema = described;
});

afterAll(async () => {
  await source?.close();
  await proxy?.close();
  await db?.drop();
});

/** Fails instead of hanging. */
function withinSeconds<T>(seconds: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still waiting after ${seconds}s`)), seconds * 1000);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads batches until the stream ends or fails; answers the failure (undefined when it ended) and the rows read. */
async function drain(batches: AsyncIterator<readonly unknown[]>): Promise<{ error: unknown; rows: number }> {
  let rows = 0;
  try {
    for (;;) {
      const next = await batches.next();
      if (next.done) return { error: undefined, rows };
      rows += next.value.length;
    }
  } catch (error) {
    return { error, rows };
  }
}

/** A slow statement on the proxied pool: rows of 260 bytes, about two per millisecond of SLEEP. */
function slowRows(rows: number, batchRows = 10_000) {
  return streamRows(pool, {
    sql: "SELECT id, pad, SLEEP(0.002) FROM rows_by_day WHERE id <= ? ORDER BY id",
    values: [rows],
    batchRows,
    zeroDateColumns: [],
    context: { table: "rows_by_day" },
  });
}

/** Resets the frozen connections, so that the pool forgets its idle ones among them. */
function dropFrozen(): void {
  proxy.cut();
}

/**
 * The pool still hands out connections (nothing leaked) and the server answers
 * through a new one, once the resets of its idle connections have reached it.
 */
async function poolStillServes(): Promise<void> {
  await sleep(100);
  const [rows] = await withinSeconds(5, pool.query({ sql: "SELECT 1", rowsAsArray: true }));
  expect(rows).toEqual([[1]]);
}

describe("a streamed read whose connection dies", () => {
  it("fails with TransientError when the connection is cut while it waits for rows", async () => {
    const batches = slowRows(2_000).batches[Symbol.asyncIterator]();
    const reading = drain(batches);
    await sleep(300);
    proxy.cut();
    const { error, rows } = await withinSeconds(5, reading);
    expect(rows).toBe(0);
    expect(error).toBeInstanceOf(TransientError);
    await poolStillServes();
  });

  it("fails with TransientError when the connection is cut while paused for a busy consumer", async () => {
    const batches = source.streamDay(schema, "at", BIG_DAY, 100).batches[Symbol.asyncIterator]();
    expect((await batches.next()).value).toHaveLength(100);
    // The consumer holds its batch; the reader fills one more and pauses the connection.
    await sleep(300);
    proxy.cut();
    const { error, rows } = await withinSeconds(5, drain(batches));
    expect(rows).toBeLessThan(BIG_DAY_ROWS);
    expect(error).toBeInstanceOf(TransientError);
    await poolStillServes();
  });

  it("fails with TransientError once the server has been silent for the idle limit", async () => {
    const started = performance.now();
    const reading = drain(slowRows(2_000).batches[Symbol.asyncIterator]());
    await sleep(300);
    proxy.freeze();
    const { error } = await withinSeconds(5, reading);
    const seconds = (performance.now() - started) / 1000;
    expect(error).toBeInstanceOf(TransientError);
    expect(String((error as Error).message)).toContain("MYSQL_STREAM_IDLE_SECONDS");
    // Silent from the freeze (0.3 s) on: noticed after the idle limit, within a quarter of it more.
    expect(seconds).toBeGreaterThanOrEqual(0.3 + IDLE_MS / 1000 - 0.05);
    dropFrozen();
    await poolStillServes();
  });

  it("does not take a slow but steady stream for a silent one", async () => {
    // About 2.5 s of rows arriving every few hundred ms: longer than the idle limit, never silent that long.
    const { error, rows } = await withinSeconds(
      20,
      drain(slowRows(1_200, 100).batches[Symbol.asyncIterator]()),
    );
    expect(error).toBeUndefined();
    expect(rows).toBe(1_200);
  });

  it("streams the whole day again over a healthy path after those failures", async () => {
    const stream = source.streamDay(schema, "at", BIG_DAY, 1_000);
    const { error, rows } = await withinSeconds(30, drain(stream.batches[Symbol.asyncIterator]()));
    expect(error).toBeUndefined();
    expect(rows).toBe(BIG_DAY_ROWS);
    expect(stream.stats().fingerprint).not.toBe("");
  });
});

describe("a statement on the pool", () => {
  it("fails with TransientError after the statement limit and gives its pool slot back", async () => {
    const single = createMysqlPool(
      { url: throughProxy(db.url, proxy), password: undefined, queryTimeoutMs: 500 },
      { connectionLimit: 1 },
    );
    try {
      const started = performance.now();
      const error = await withinSeconds(
        5,
        single.query({ sql: "SELECT SLEEP(3)" }).then(
          () => undefined,
          (e) => e,
        ),
      );
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(mapMysqlError(error)).toBeInstanceOf(TransientError);
      expect(String((error as Error).message)).toContain("MYSQL_QUERY_TIMEOUT_SECONDS");
      // One connection in all: the timed-out statement no longer holds it.
      const [rows] = await withinSeconds(5, single.query({ sql: "SELECT 1", rowsAsArray: true }));
      expect(rows).toEqual([[1]]);
    } finally {
      await single.end();
    }
  });

  it("fails with TransientError on a connection whose path went silent", async () => {
    const connection = await pool.getConnection();
    proxy.freeze();
    const error = await withinSeconds(
      5,
      connection.query({ sql: "SELECT 1" }).then(
        () => undefined,
        (e) => e,
      ),
    );
    expect(mapMysqlError(error)).toBeInstanceOf(TransientError);
    connection.release();
    dropFrozen();
    await poolStillServes();
  });
});
