import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase, uniqueName } from "../../testing/test-services";
import { createMysqlPool, type MysqlPoolConnection } from "./create-mysql-pool";

let db: TestDatabase;
const user = uniqueName("archiver_user");

beforeAll(async () => {
  db = await createTestDatabase();
  await db.connection.query(`CREATE USER '${user}'@'%' IDENTIFIED BY 'right-password'`);
  await db.connection.query(`GRANT SELECT ON \`${db.name}\`.* TO '${user}'@'%'`);
});

afterAll(async () => {
  await db?.connection.query(`DROP USER IF EXISTS '${user}'@'%'`);
  await db?.drop();
});

function urlFor(password: string, query = ""): string {
  const url = new URL(db.url);
  url.username = user;
  url.password = password;
  url.search = query;
  return url.toString();
}

async function firstRow(connection: MysqlPoolConnection, sql: string): Promise<unknown[]> {
  const [rows] = await connection.query({ sql, rowsAsArray: true });
  return (rows as unknown[][])[0] ?? [];
}

describe("createMysqlPool", () => {
  it("sets every new connection to UTC with a long write timeout", async () => {
    const pool = createMysqlPool({ url: db.url, password: undefined }, { connectionLimit: 3 });
    try {
      const connections = await Promise.all([
        pool.getConnection(),
        pool.getConnection(),
        pool.getConnection(),
      ]);
      for (const connection of connections) {
        const [zone, timeout] = await firstRow(
          connection,
          "SELECT @@session.time_zone, @@session.net_write_timeout",
        );
        expect(zone).toBe("+00:00");
        expect(Number(timeout)).toBeGreaterThanOrEqual(600);
      }
      for (const connection of connections) connection.release();
    } finally {
      await pool.end();
    }
  });

  it("reads TIMESTAMP in UTC whatever zone wrote it", async () => {
    await db.connection.query(`
      CREATE TABLE stamps (ts TIMESTAMP(6) NOT NULL);
      SET time_zone = '-07:00';
      INSERT INTO stamps VALUES ('2024-06-30 20:00:00.250000');
      SET time_zone = DEFAULT;`);
    const pool = createMysqlPool({ url: db.url, password: undefined });
    try {
      const [rows] = await pool.query({ sql: "SELECT ts FROM stamps", rowsAsArray: true });
      expect(rows).toEqual([["2024-07-01 03:00:00.250000"]]);
    } finally {
      await pool.end();
    }
  });

  it("lets MYSQL_PASSWORD replace the password in the URL", async () => {
    const withOverride = createMysqlPool({ url: urlFor("wrong-password"), password: "right-password" });
    const withoutOverride = createMysqlPool({ url: urlFor("wrong-password"), password: undefined });
    try {
      const [rows] = await withOverride.query({ sql: "SELECT CURRENT_USER()", rowsAsArray: true });
      expect(String((rows as unknown[][])[0]?.[0])).toContain(user);
      await expect(withoutOverride.query({ sql: "SELECT 1" })).rejects.toMatchObject({
        code: "ER_ACCESS_DENIED_ERROR",
      });
    } finally {
      await Promise.all([withOverride.end(), withoutOverride.end()]);
    }
  });

  it("keeps values canonical whatever the URL's parameters say", async () => {
    const url = urlFor("right-password", "?decimalNumbers=true&dateStrings=false&bigNumberStrings=false");
    const pool = createMysqlPool({ url, password: undefined });
    try {
      const [rows] = await pool.query({
        sql: "SELECT CAST(1.50 AS DECIMAL(4,2)), CAST('2024-01-02 03:04:05' AS DATETIME), CAST(18446744073709551615 AS UNSIGNED)",
        rowsAsArray: true,
      });
      expect(rows).toEqual([["1.50", "2024-01-02 03:04:05", "18446744073709551615"]]);
    } finally {
      await pool.end();
    }
  });
});
