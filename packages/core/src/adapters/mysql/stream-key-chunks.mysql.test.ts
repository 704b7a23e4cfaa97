import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CalendarDay } from "../../model/calendar-day";
import type { ChunkTarget } from "../../model/day-chunks";
import type { TableSchema } from "../../model/table-schema";
import { createTestDatabase, type TestDatabase } from "../../testing/test-services";
import { createMysqlPool, type MysqlPool } from "./create-mysql-pool";
import { createMysqlDayDeleter } from "./mysql-day-deleter";
import { createMysqlSourceDatabase } from "./mysql-source-database";

// The copy's stream cuts the day into key chunks as it reads it (DayStreamStats.chunks): each chunk's
// figures, hashed by the archiver from the rows it received, must be the figures the server computes
// for that key range under a cleanup's lock, or cleanup would refuse every chunk.

let db: TestDatabase;
let pool: MysqlPool;
const DAY: CalendarDay = "2024-03-05";

beforeAll(async () => {
  db = await createTestDatabase("stream_chunks");
  pool = createMysqlPool({ url: db.url, password: undefined }, { connectionLimit: 2 });
  for (const [table, charset] of [
    ["utf8_rows", "utf8mb4"],
    ["latin_rows", "latin1"],
  ] as const) {
    await db.connection.query(
      `CREATE TABLE ${table} (
         id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
         created_at DATETIME(6) NOT NULL,
         note VARCHAR(40) CHARACTER SET ${charset} NULL,
         amount DECIMAL(10,2) NOT NULL,
         KEY (created_at)
       )`,
    );
    // 2,500 rows of the day with scattered, sparse keys (read through the filter column's index, out of
    // key order), rows of the days around it, and NULLs and accents in the text.
    await db.connection.query(
      `INSERT INTO ${table}
       SELECT (seq * 7919) MOD 1000003 + 10, '${DAY}' + INTERVAL seq SECOND,
              IF(seq MOD 7 = 0, NULL, CONCAT('é ', seq)), seq / 100 FROM seq_0_to_2499`,
    );
    await db.connection.query(
      `INSERT INTO ${table} VALUES (1, '${DAY}' - INTERVAL 1 SECOND, 'before', 1), (2, '${DAY}' + INTERVAL 1 DAY, 'after', 2)`,
    );
  }
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

async function streamed(schema: TableSchema) {
  const stream = createMysqlSourceDatabase(pool).streamDay(schema, "created_at", DAY, 300);
  for await (const _batch of stream.batches);
  return stream.stats();
}

describe("the copy's key chunks", () => {
  for (const table of ["utf8_rows", "latin_rows"]) {
    it(`match, chunk by chunk, the server's figures of the same key ranges (${table})`, async () => {
      const source = createMysqlSourceDatabase(pool);
      const schema = await source.describeTable(table);
      if (!schema) throw new Error(`${table} is missing`);
      const stats = await streamed(schema);
      const chunks = stats.chunks ?? [];
      expect(chunks.map((chunk) => chunk.rows)).toEqual([1000, 1000, 500]);
      // Contiguous from the day's smallest key to its largest, adding up to the day.
      const day = await source.dayFigures(schema, "created_at", DAY);
      expect(chunks[0]?.first).toBe(day.key?.min);
      expect(chunks.at(-1)?.last).toBe(day.key?.max);
      for (let i = 1; i < chunks.length; i++)
        expect(BigInt(chunks[i]?.first ?? 0)).toBe(BigInt(chunks[i - 1]?.last ?? 0) + 1n);
      expect(chunks.reduce((sum, chunk) => sum + BigInt(chunk.fingerprint), 0n).toString()).toBe(
        stats.fingerprint,
      );
      expect(stats.fingerprint).toBe(day.fingerprint);
      // The server's own plan of the day cuts it at the same keys, with the same figures.
      const target: ChunkTarget = {
        scope: { table, column: "created_at", day: DAY },
        schema,
        by: { kind: "key", column: "id", unsigned: true },
      };
      const planned = await createMysqlDayDeleter(pool).planChunks(target, 1000);
      expect(chunks.map(({ first, rows, fingerprint }) => ({ first, rows, fingerprint }))).toEqual(
        planned.map(({ first, rows, fingerprint }) => ({ first, rows, fingerprint })),
      );
    });
  }

  it("match the server's plan for a day of dense signed keys read along the primary key, cut as the rows come", async () => {
    // Times fall as ids rise: rows arriving in key order show the day was read along the key, its
    // statement ordered by it, so the chunks were cut as the rows came (createKeyOrderChunker).
    await db.connection.query(
      `CREATE TABLE dense_rows (id BIGINT NOT NULL PRIMARY KEY, created_at DATETIME(6) NOT NULL, note VARCHAR(20) NULL, KEY (created_at))`,
    );
    await db.connection.query(
      `INSERT INTO dense_rows SELECT CAST(seq AS SIGNED) - 1200, '${DAY} 23:00:00' - INTERVAL seq SECOND, CONCAT('n', seq) FROM seq_0_to_2499`,
    );
    const source = createMysqlSourceDatabase(pool);
    const schema = await source.describeTable("dense_rows");
    if (!schema) throw new Error("dense_rows is missing");
    const ids: string[] = [];
    const stream = source.streamDay(schema, "created_at", DAY, 300);
    for await (const batch of stream.batches) ids.push(...batch.map((row) => String(row[0])));
    expect(ids).toEqual(Array.from({ length: 2500 }, (_, i) => String(i - 1200)));
    const chunks = stream.stats().chunks ?? [];
    expect(chunks.map(({ first, last, rows }) => [first, last, rows])).toEqual([
      ["-1200", "-201", 1000],
      ["-200", "799", 1000],
      ["800", "1299", 500],
    ]);
    const planned = await createMysqlDayDeleter(pool).planChunks(
      {
        scope: { table: "dense_rows", column: "created_at", day: DAY },
        schema,
        by: { kind: "key", column: "id", unsigned: false },
      },
      1000,
    );
    expect(chunks.map(({ first, rows, fingerprint }) => ({ first, rows, fingerprint }))).toEqual(
      planned.map(({ first, rows, fingerprint }) => ({ first, rows, fingerprint })),
    );
    expect((await source.dayFigures(schema, "created_at", DAY)).fingerprint).toBe(stream.stats().fingerprint);
  });

  it("are absent for a table without one integer key", async () => {
    await db.connection.query(
      `CREATE TABLE no_key (created_at DATETIME NOT NULL, v INT NOT NULL, KEY (created_at))`,
    );
    await db.connection.query(`INSERT INTO no_key VALUES ('${DAY} 01:00:00', 1), ('${DAY} 02:00:00', 2)`);
    const schema = await createMysqlSourceDatabase(pool).describeTable("no_key");
    if (!schema) throw new Error("no_key is missing");
    const stats = await streamed(schema);
    expect(stats.rows).toBe(2);
    expect(stats.chunks).toBeUndefined();
  });
});
