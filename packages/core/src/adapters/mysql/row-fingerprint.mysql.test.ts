import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChunkTarget } from "../../model/day-chunks";
import { createTestDatabase, type TestDatabase } from "../../testing/test-services";
import { createMysqlPool, type MysqlPool } from "./create-mysql-pool";
import { createMysqlDayDeleter } from "./mysql-day-deleter";
import { createMysqlSourceDatabase } from "./mysql-source-database";
import { readPlan } from "./read-plan";
import { clientRowHasher, rowHashHex } from "./row-fingerprint";

let db: TestDatabase;
let pool: MysqlPool;

beforeAll(async () => {
  db = await createTestDatabase("fingerprint");
  pool = createMysqlPool({ url: db.url, password: undefined });
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

const DAY = "2024-05-01";

/**
 * The day's fingerprint four ways: in the copy stream's snapshot, counted now,
 * added up from the chunk plan, and added up from what each chunk's locking
 * read found before a delete (each chunk offered with a wrong fingerprint, so
 * the delete answers "changed" with what it found, and rolls back).
 */
async function fingerprints(table: string, keyed: boolean) {
  const source = createMysqlSourceDatabase(pool);
  const schema = await source.describeTable(table);
  if (!schema) throw new Error(`no table ${table}`);
  const stream = source.streamDay(schema, "at", DAY, 2);
  const rows: unknown[][] = [];
  for await (const batch of stream.batches) rows.push(...(batch as unknown[][]));
  const target: ChunkTarget = {
    scope: { table, column: "at", day: DAY },
    schema,
    by: keyed ? { kind: "key", column: "id", unsigned: false } : { kind: "time" },
  };
  const chunks = await createMysqlDayDeleter(pool).planChunks(target, 2);
  // What a delete finds: a locked read hashed by the server, or the rows DELETE … RETURNING hands back.
  const found = { locked: 0n, returned: 0n };
  for (const returning of [false, true]) {
    const deleter = createMysqlDayDeleter(pool, { returning });
    for (const chunk of chunks) {
      const none = { referencingKeys: [], deleteTriggers: [] };
      const outcome = await deleter.deleteChunk(target, { ...chunk, fingerprint: "1" }, none);
      if (outcome.kind !== "changed") throw new Error(`chunk ${chunk.first}: ${outcome.kind}`);
      found[returning ? "returned" : "locked"] += BigInt(outcome.fingerprint);
    }
  }
  return {
    rows,
    streamed: stream.stats().fingerprint,
    counted: (await source.dayFigures(schema, "at", DAY)).fingerprint,
    chunked: chunks.reduce((sum, chunk) => sum + BigInt(chunk.fingerprint), 0n).toString(),
    locked: found.locked.toString(),
    returned: found.returned.toString(),
  };
}

describe("the content fingerprint on a real server", () => {
  it("is the same whether taken by the copy stream, counted by the server, or added up from chunks", async () => {
    await db.connection.query(`
      CREATE TABLE every_type (
        id INT NOT NULL PRIMARY KEY, at DATETIME(6) NOT NULL,
        price DECIMAL(20,6), big BIGINT UNSIGNED, f FLOAT, d DOUBLE, doc JSON, bin VARBINARY(16), blob_col BLOB,
        t TIME(3), flags BIT(10), kind ENUM('a','b'), tags SET('x','y'), ci VARCHAR(16) COLLATE utf8mb4_general_ci,
        bin_text VARCHAR(16) CHARACTER SET latin1 COLLATE latin1_bin, emoji TEXT CHARACTER SET utf8mb4, KEY (at)
      );
      INSERT INTO every_type VALUES
        (1, '2024-05-01 00:00:00.000001', 12345678901234.123456, 18446744073709551615, 123456.789, 1e308,
         '{"a": [1, 2]}', X'00FF10', X'DEADBEEF', '-838:59:59.000', b'1010101010', 'a', 'x,y', 'Ab', 'caf\\xe9', '😀'),
        (2, '2024-05-01 12:00:00', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        (3, '2024-05-01 23:59:59.999999', 0, 0, -0.5, -1.5e-300, 'null', X'', X'', '00:00:00', b'0', 'b', '', '', '', ''),
        (4, '2024-05-02 00:00:00', 1, 1, 1, 1, '1', X'01', X'01', '01:00:00', b'1', 'a', 'x', 'z', 'z', 'z');
    `);
    const keyed = await fingerprints("every_type", true);
    expect(keyed.rows).toHaveLength(3);
    // The hash column never reaches the rows the warehouse receives.
    expect(keyed.rows.every((row) => row.length === 16)).toBe(true);
    expect(keyed.streamed).toMatch(/^[1-9]\d+$/);
    expect(keyed.counted).toBe(keyed.streamed);
    expect(keyed.chunked).toBe(keyed.streamed);
    expect(keyed.locked).toBe(keyed.streamed);
    expect(keyed.returned).toBe(keyed.streamed);
    const keyless = await fingerprints("every_type", false);
    expect(keyless.chunked).toBe(keyed.streamed);
    expect(keyless.locked).toBe(keyed.streamed);
    expect(keyless.returned).toBe(keyed.streamed);
  });

  it("is computed by the archiver, row by row, exactly as the server computes it, for every type it reads as UTF-8", async () => {
    await db.connection.query(`
      SET SESSION sql_mode = '';
      CREATE TABLE utf8_types (
        id BIGINT NOT NULL PRIMARY KEY, at DATETIME(6) NOT NULL, ts TIMESTAMP NULL, d DATE, y YEAR,
        tiny TINYINT, small SMALLINT UNSIGNED, medium MEDIUMINT, i INT UNSIGNED, big BIGINT UNSIGNED,
        price DECIMAL(20,6), f FLOAT, dbl DOUBLE, doc JSON, bin VARBINARY(16), blob_col BLOB,
        t TIME(3), flags BIT(10), kind ENUM('a','é'), tags SET('x','y'), ci VARCHAR(16) COLLATE utf8mb4_general_ci,
        old_utf8 VARCHAR(16) CHARACTER SET utf8mb3, plain VARCHAR(16) CHARACTER SET ascii, emoji TEXT, addr INET6,
        shape POINT, KEY (at)
      ) DEFAULT CHARSET = utf8mb4;
      INSERT INTO utf8_types VALUES
        (1, '2024-05-01 00:00:00.000001', '2024-05-01 10:00:00', '0000-00-00', 0, -128, 65535, -8388608, 4294967295,
         18446744073709551615, -12345678901234.123456, 123456.789, 1e20, '{"a": [1, "#"]}', X'00FF23', X'DEADBEEF',
         '-838:59:59.000', b'1010101010', 'é', 'x,y', 'A#b', 'Ça#', 'a#', '😀#', '::1', POINT(1.5, -2)),
        (2, '2024-05-01 12:00:00', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
         NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        (3, '2024-05-01 23:59:59.999999', '0000-00-00 00:00:00', '2024-02-29', 2155, 0, 0, 0, 0, 0, 0, -0.5, 1e-7,
         'null', X'', X'', '00:00:00', b'0', 'a', '', '', '', '', '', '::', NULL),
        (4, '2024-05-01 13:00:00', NULL, '1000-01-01', 1901, 1, 1, 1, 1, 1, 0.000001, 3.4e38, 5e-324, '1', X'01',
         X'01', '01:00:00', b'1', 'a', 'y', 'z', 'z', 'z', 'z', 'ff::1', POINT(0, 0)),
        (5, '2024-05-01 14:00:00', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1, 1, -1.7976931348623157e308,
         NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    `);
    // The same values without binary columns, which the archiver hashes as one string.
    await db.connection.query(`
      CREATE TABLE utf8_text (PRIMARY KEY (id), KEY (at)) DEFAULT CHARSET = utf8mb4
        SELECT id, at, ts, d, y, tiny, small, medium, i, big, price, f, dbl, doc, t, flags, kind, tags, ci,
          old_utf8, plain, emoji, addr FROM utf8_types;
    `);
    for (const table of ["utf8_types", "utf8_text"]) {
      const schema = await createMysqlSourceDatabase(pool).describeTable(table);
      if (!schema) throw new Error(`no table ${table}`);
      const hashRow = clientRowHasher(schema);
      expect(hashRow).toBeDefined();
      const [rows] = await pool.query({
        sql: `SELECT ${readPlan(schema).selectList}, CAST(CONV(${rowHashHex(schema)}, 16, 10) AS CHAR) FROM ${table} ORDER BY id`,
        rowsAsArray: true,
      });
      expect(rows).toHaveLength(5);
      for (const row of rows as unknown[][]) {
        const server = BigInt(row.pop() as string);
        expect({ table, id: row[0], hash: hashRow?.(row) }).toEqual({ table, id: row[0], hash: server });
      }
      const { streamed, counted, locked, returned } = await fingerprints(table, true);
      expect(counted).toBe(streamed);
      // What a chunk's locking read finds before its delete is what the copy recorded.
      expect(locked).toBe(streamed);
      expect(returned).toBe(streamed);
    }
  });

  it("is left to the server when a text column is in a character set the archiver receives re-encoded", async () => {
    await db.connection.query(`
      CREATE TABLE latin1_text (id INT NOT NULL PRIMARY KEY, at DATETIME NOT NULL, name VARCHAR(8) CHARACTER SET latin1, KEY (at));
      INSERT INTO latin1_text VALUES (1, '2024-05-01 10:00:00', 'café'), (2, '2024-05-01 11:00:00', NULL);
    `);
    const schema = await createMysqlSourceDatabase(pool).describeTable("latin1_text");
    if (!schema) throw new Error("no table latin1_text");
    expect(clientRowHasher(schema)).toBeUndefined();
    const { rows, streamed, counted, locked, returned } = await fingerprints("latin1_text", true);
    expect(rows).toEqual([
      [1, "2024-05-01 10:00:00", "café"],
      [2, "2024-05-01 11:00:00", null],
    ]);
    expect(counted).toBe(streamed);
    expect(locked).toBe(streamed);
    expect(returned).toBe(streamed);
  });

  it("tells apart rows that a plain concatenation, a collation or a rounded float would confuse", async () => {
    await db.connection.query(`
      CREATE TABLE pairs (id INT NOT NULL PRIMARY KEY, at DATETIME NOT NULL,
        a VARCHAR(8) COLLATE utf8mb4_general_ci, b VARCHAR(8), f FLOAT, KEY (at));
    `);
    const fingerprintOf = async (a: string | null, b: string | null, f: number | null) => {
      await db.connection.query("DELETE FROM pairs");
      await db.connection.query("INSERT INTO pairs VALUES (1, '2024-05-01 10:00:00', ?, ?, ?)", [a, b, f]);
      return (await fingerprints("pairs", true)).counted;
    };
    const base = await fingerprintOf("a#", "b", 1);
    const seen = new Set([base]);
    for (const other of [
      await fingerprintOf("a", "#b", 1),
      await fingerprintOf("A#", "b", 1),
      await fingerprintOf(null, "b", 1),
      await fingerprintOf("", "b", 1),
      await fingerprintOf("a#", "b", null),
      await fingerprintOf("a#", "b", 1.0000001),
    ]) {
      expect(seen.has(other)).toBe(false);
      seen.add(other);
    }
    expect(await fingerprintOf("a#", "b", 1)).toBe(base);
  });
});
