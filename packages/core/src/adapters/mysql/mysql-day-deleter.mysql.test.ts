import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChunkBy, ChunkTarget, DayScope } from "../../ports/day-deleter";
import { createTestDatabase, type TestDatabase, testMysqlServerUrl } from "../../testing/test-services";
import { createMysqlPool, type MysqlPool } from "./create-mysql-pool";
import { createMysqlDayDeleter } from "./mysql-day-deleter";
import { createMysqlLoadProbe } from "./mysql-load-probe";
import { createMysqlSourceDatabase } from "./mysql-source-database";

let db: TestDatabase;
let pool: MysqlPool;

beforeAll(async () => {
  db = await createTestDatabase("deleter");
  pool = createMysqlPool({ url: db.url, password: undefined });
  await db.connection.query(`
    CREATE TABLE big (id BIGINT UNSIGNED NOT NULL PRIMARY KEY, at DATETIME(6) NOT NULL, KEY (at));
    INSERT INTO big VALUES
      (18446744073709551610, '2024-01-01 00:00:00'), (18446744073709551611, '2024-01-01 01:00:00'),
      (18446744073709551612, '2024-01-01 02:00:00'), (18446744073709551613, '2024-01-01 23:59:59.999999'),
      (18446744073709551614, '2024-01-02 00:00:00'), (18446744073709551615, '2023-12-31 23:59:59.999999');
    CREATE TABLE neg (id INT NOT NULL PRIMARY KEY, at DATETIME NOT NULL);
    INSERT INTO neg VALUES (-5, '2024-01-01 01:00:00'), (-3, '2024-01-01 02:00:00'), (-1, '2024-01-01 03:00:00'),
      (2, '2024-01-01 04:00:00'), (4, '2024-01-02 04:00:00');
    SET SESSION sql_mode = '';
    CREATE TABLE zero (at DATETIME NOT NULL, note VARCHAR(8));
    INSERT INTO zero VALUES ('2024-01-31 10:00:00', 'a'), ('2024-01-31 11:00:00', 'b'), ('2024-02-00 10:00:00', 'zero'),
      ('2024-02-01 00:00:00', 'next');
  `);
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

const deleter = () => createMysqlDayDeleter(pool);
const day = (table: string, d: string): DayScope => ({ table, column: "at", day: d });
/** A table nothing references and no trigger watches. */
const none = { referencingKeys: [], deleteTriggers: [] };
const unsignedKey: ChunkBy = { kind: "key", column: "id", unsigned: true };

async function target(table: string, d: string, by: ChunkBy): Promise<ChunkTarget> {
  const schema = await createMysqlSourceDatabase(pool).describeTable(table);
  if (!schema) throw new Error(`no table ${table}`);
  return { scope: day(table, d), schema, by };
}

/** Chunks without their fingerprints, which the fingerprint tests check on their own. */
const shapes = (chunks: readonly { fingerprint: string }[]) =>
  chunks.map(({ fingerprint: _, ...rest }) => rest);

async function ids(table: string): Promise<string[]> {
  const [rows] = await db.connection.query(`SELECT CAST(id AS CHAR) AS k FROM ${table} ORDER BY id`);
  return (rows as { k: string }[]).map((row) => row.k);
}

describe("createMysqlDayDeleter", () => {
  it("plans every key of the day near 2^64 exactly, and only the day's", async () => {
    const chunks = await deleter().planChunks(await target("big", "2024-01-01", unsignedKey), 3);
    expect(shapes(chunks)).toEqual([
      { first: "18446744073709551610", last: "18446744073709551612", rows: 3, sum: "55340232221128654833" },
      { first: "18446744073709551613", last: "18446744073709551613", rows: 1, sum: "18446744073709551613" },
    ]);
    expect(chunks.every((chunk) => /^[1-9]\d*$/.test(chunk.fingerprint))).toBe(true);
  });

  it("pages through a day larger than one planning query, chunk after chunk", async () => {
    await db.connection.query(`
      CREATE TABLE many (id INT UNSIGNED NOT NULL PRIMARY KEY, at DATETIME NOT NULL, KEY (at));
      INSERT INTO many (id, at)
        SELECT n, TIMESTAMP('2024-02-01') + INTERVAL (n % 86400) SECOND
        FROM (SELECT 1 + a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d AS n
              FROM ${digits("a")}, ${digits("b")}, ${digits("c")}, ${digits("e")}, ${digits("f")}) s
        WHERE n <= 60000;
      INSERT INTO many VALUES (60001, '2024-02-02 00:00:00'), (60002, '2024-01-31 23:59:59');
    `);
    const chunks = await deleter().planChunks(await target("many", "2024-02-01", unsignedKey), 5000);
    expect(chunks).toHaveLength(12);
    expect(chunks.every((c, i) => c.rows === 5000 && c.first === String(i * 5000 + 1))).toBe(true);
    expect(chunks.at(-1)?.last).toBe("60000");
    expect(chunks.reduce((sum, c) => sum + BigInt(c.sum ?? 0), 0n)).toBe(1_800_030_000n);
  });

  it("deletes a chunk only while its rows are exactly the planned ones", async () => {
    const big = await target("big", "2024-01-01", unsignedKey);
    const [first] = await deleter().planChunks(big, 3);
    if (!first) throw new Error("no chunk");

    const tampered = { ...first, sum: "1" };
    expect(await deleter().deleteChunk(big, tampered, none)).toMatchObject({ kind: "changed", rows: 3 });
    const otherContent = { ...first, fingerprint: String(BigInt(first.fingerprint) + 1n) };
    expect(await deleter().deleteChunk(big, otherContent, none)).toMatchObject({
      kind: "changed",
      rows: 3,
      fingerprint: first.fingerprint,
    });
    expect(await ids("big")).toHaveLength(6);

    expect(await deleter().deleteChunk(big, first, none)).toEqual({ kind: "deleted", rows: 3 });
    expect(await deleter().deleteChunk(big, first, none)).toEqual({ kind: "absent" });
    expect(await ids("big")).toEqual([
      "18446744073709551613",
      "18446744073709551614",
      "18446744073709551615",
    ]);
  });

  it("handles signed keys below zero", async () => {
    const neg = await target("neg", "2024-01-01", { kind: "key", column: "id", unsigned: false });
    const chunks = await deleter().planChunks(neg, 2);
    expect(shapes(chunks)).toEqual([
      { first: "-5", last: "-3", rows: 2, sum: "-8" },
      { first: "-1", last: "2", rows: 2, sum: "1" },
    ]);
    for (const chunk of chunks) await deleter().deleteChunk(neg, chunk, none);
    expect(await ids("neg")).toEqual(["4"]);
  });

  it("without a key: chunks by filter value within the day, never a partial zero date", async () => {
    const zero = await target("zero", "2024-01-31", { kind: "time" });
    const chunks = await deleter().planChunks(zero, 1);
    expect(shapes(chunks)).toEqual([
      { first: "2024-01-31 10:00:00", last: "2024-01-31 10:00:00", rows: 1 },
      { first: "2024-01-31 11:00:00", last: "2024-01-31 11:00:00", rows: 1 },
    ]);
    for (const chunk of chunks)
      expect(await deleter().deleteChunk(zero, chunk, none)).toEqual({ kind: "deleted", rows: 1 });
    const [rows] = await db.connection.query("SELECT note FROM zero ORDER BY note");
    expect((rows as { note: string }[]).map((row) => row.note)).toEqual(["next", "zero"]);
  });

  it("without a key: never splits one instant; chunks start where the running count passes a multiple of the size", async () => {
    await db.connection.query(`
      CREATE TABLE dup (at DATETIME NOT NULL, note VARCHAR(8), KEY (at));
      INSERT INTO dup VALUES ('2024-03-01 01:00:00', 'a'), ('2024-03-01 01:00:00', 'a'), ('2024-03-01 01:00:00', 'a'),
        ('2024-03-01 02:00:00', 'b'), ('2024-03-01 03:00:00', 'c'), ('2024-03-01 04:00:00', 'd');
    `);
    const dup = await target("dup", "2024-03-01", { kind: "time" });
    const chunks = await deleter().planChunks(dup, 2);
    expect(shapes(chunks)).toEqual([
      { first: "2024-03-01 01:00:00", last: "2024-03-01 01:00:00", rows: 3 },
      { first: "2024-03-01 02:00:00", last: "2024-03-01 02:00:00", rows: 1 },
      { first: "2024-03-01 03:00:00", last: "2024-03-01 04:00:00", rows: 2 },
    ]);
    // One duplicate gone: same instant, fewer rows. The chunk is refused whole.
    await db.connection.query("DELETE FROM dup WHERE note = 'a' LIMIT 1");
    const [triple] = chunks;
    if (!triple) throw new Error("no chunk");
    expect(await deleter().deleteChunk(dup, triple, none)).toMatchObject({ kind: "changed", rows: 2 });
    const [left] = await db.connection.query("SELECT CAST(COUNT(*) AS SIGNED) AS n FROM dup");
    expect(Number((left as { n: unknown }[])[0]?.n)).toBe(5);
  });

  it("describes the statement an operator would run, values written in", () => {
    const range = { column: "id", unsigned: true, min: "10", max: "20" };
    expect(deleter().describeDelete(day("big", "2024-01-01"), range)).toBe(
      "DELETE FROM `big` WHERE `at` >= '2024-01-01 00:00:00' AND `at` < '2024-01-02 00:00:00' AND `id` BETWEEN 10 AND 20",
    );
    expect(deleter().describeDelete(day("zero", "2024-01-31"))).toBe(
      "DELETE FROM `zero` WHERE `at` >= '2024-01-31 00:00:00' AND `at` < '2024-02-01 00:00:00' AND MONTH(`at`) <> 0 AND DAYOFMONTH(`at`) <> 0",
    );
  });
});

describe("createMysqlLoadProbe on a real server", () => {
  it("reads Threads_running, and reports a server that is not a replica as unknown lag", async () => {
    const probe = createMysqlLoadProbe({ primary: pool, replicaUrls: [testMysqlServerUrl] });
    try {
      expect(await probe.threadsRunning()).toBeGreaterThanOrEqual(1);
      const redo = await probe.redoFill();
      expect(redo?.capacityBytes).toBeGreaterThan(0);
      expect(redo?.percent).toBeGreaterThanOrEqual(0);
      expect(redo?.percent).toBeLessThan(100);
      const [lag] = await probe.replicaLags();
      expect(lag).toMatchObject({ seconds: null, reason: "not a replica" });
    } finally {
      await probe.close();
    }
  });
});

function digits(alias: string): string {
  return `(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4
           UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9) ${alias}`;
}
