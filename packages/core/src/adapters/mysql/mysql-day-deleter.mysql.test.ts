import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChunkBy, ChunkTarget } from "../../model/day-chunks";
import type { DayScope } from "../../model/table-day";
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
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

const deleter = () => createMysqlDayDeleter(pool);
const day = (table: string, d: string): DayScope => ({ table, column: "at", day: d });
const unsignedKey: ChunkBy = { kind: "key", column: "id", unsigned: true };

async function target(table: string, d: string, by: ChunkBy): Promise<ChunkTarget> {
  const schema = await createMysqlSourceDatabase(pool).describeTable(table);
  if (!schema) throw new Error(`no table ${table}`);
  return { scope: day(table, d), schema, by };
}

// What every DayDeleter does is in mysql-day-deleter.contract.mysql.test.ts; here, what is MySQL's own.
describe("createMysqlDayDeleter", () => {
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
