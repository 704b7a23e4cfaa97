import { ConfigError } from "@table-archiver/core";
import { createMysqlPool, type MysqlPool } from "@table-archiver/core/mysql";
import { createRedisClient } from "@table-archiver/core/redis";
import {
  createTestDatabase,
  type TestDatabase,
  testRedisUrl,
  uniqueName,
} from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadHash } from "./load-hash";
import { type LoaderSource, resolveLoaderSource } from "./loader-source";

// Needs Redis as well as MySQL: the loader moves rows from one to the other.
let db: TestDatabase;
let pool: MysqlPool;
const redis = createRedisClient({ url: testRedisUrl, auth: undefined });
const hashes: string[] = [];

function newHash(): string {
  const hash = uniqueName("transportitas");
  hashes.push(hash);
  return hash;
}

async function source(table: string, query?: string): Promise<LoaderSource> {
  return resolveLoaderSource(pool, { table, query, hash: "unused", batchRows: 1000 });
}

async function stagingKeys(hash: string): Promise<string[]> {
  return redis.keys(`{${hash}}:loading:*`);
}

beforeAll(async () => {
  db = await createTestDatabase("loader_test");
  pool = createMysqlPool({ url: db.url, password: undefined });
  await db.connection.query(`
    CREATE TABLE transportitas (
      id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
      amount DECIMAL(20,6) NOT NULL,
      departed_at DATETIME(6) NULL,
      payload BLOB NULL,
      doc JSON NULL,
      note VARCHAR(100) CHARACTER SET utf8mb4 NULL
    );
    INSERT INTO transportitas VALUES
      (18446744073709551615, 99999999999999.999999, '2024-02-29 23:59:59.123456', X'00FF10', '{"a": 12345678901234567890}', 'ñandú 🚚'),
      (1, 0.000001, NULL, NULL, NULL, NULL);
    CREATE TABLE legs (route VARCHAR(10) NOT NULL, seq INT NOT NULL, stop VARCHAR(20), PRIMARY KEY (route, seq));
    INSERT INTO legs VALUES ('a:b', 1, 'x'), ('a', 1, 'y');
    CREATE TABLE nokey (v INT);
    CREATE TABLE empty_table (id INT PRIMARY KEY);
    CREATE TABLE many (id INT PRIMARY KEY, v INT NOT NULL);
    INSERT INTO many SELECT seq, seq * 2 FROM seq_1_to_50;
  `);
});

afterAll(async () => {
  if (hashes.length > 0) await redis.del(...hashes);
  await pool.end();
  await db.drop();
  await redis.quit();
});

describe("loadHash", () => {
  it("writes every row under its primary key as exact JSON, and the hash does not expire", async () => {
    const hash = newHash();
    const result = await loadHash({
      pool,
      redis,
      source: await source("transportitas"),
      hash,
      batchRows: 1000,
    });
    expect(result).toMatchObject({ hash, fields: 2 });
    const all = await redis.hgetall(hash);
    expect(Object.keys(all).sort()).toEqual(["1", "18446744073709551615"]);
    expect(JSON.parse(all["18446744073709551615"] ?? "")).toEqual({
      id: "18446744073709551615",
      amount: "99999999999999.999999",
      departed_at: "2024-02-29 23:59:59.123456",
      payload: "AP8Q",
      doc: '{"a": 12345678901234567890}',
      note: "ñandú 🚚",
    });
    expect(JSON.parse(all["1"] ?? "")).toEqual({
      id: "1",
      amount: "0.000001",
      departed_at: null,
      payload: null,
      doc: null,
      note: null,
    });
    expect(await redis.ttl(hash)).toBe(-1);
    expect(await stagingKeys(hash)).toEqual([]);
  });

  it("replaces the previous content instead of merging into it", async () => {
    const hash = newHash();
    await redis.hset(hash, "stale", "{}", "1", "old");
    await loadHash({ pool, redis, source: await source("transportitas"), hash, batchRows: 1000 });
    const all = await redis.hgetall(hash);
    expect(all.stale).toBeUndefined();
    expect(JSON.parse(all["1"] ?? "").id).toBe("1");
  });

  it("writes many batches and still lands every row", async () => {
    const hash = newHash();
    const result = await loadHash({ pool, redis, source: await source("many"), hash, batchRows: 7 });
    expect(result.fields).toBe(50);
    expect(JSON.parse((await redis.hget(hash, "50")) ?? "")).toEqual({ id: 50, v: 100 });
  });

  it("names a field of a composite key by the JSON array of its values", async () => {
    const hash = newHash();
    await loadHash({ pool, redis, source: await source("legs"), hash, batchRows: 1000 });
    expect(Object.keys(await redis.hgetall(hash)).sort()).toEqual(['["a","1"]', '["a:b","1"]']);
  });

  it("uses LOADER_QUERY when set, naming each field by the first column", async () => {
    const hash = newHash();
    const custom = await source("ignored", "SELECT CONCAT('v', v) AS k, id FROM many WHERE id <= 3");
    const result = await loadHash({ pool, redis, source: custom, hash, batchRows: 1000 });
    expect(result.fields).toBe(3);
    expect(await redis.hgetall(hash)).toEqual({
      v2: '{"k":"v2","id":1}',
      v4: '{"k":"v4","id":2}',
      v6: '{"k":"v6","id":3}',
    });
  });

  it("deletes the hash when the source has no rows", async () => {
    const hash = newHash();
    await redis.hset(hash, "old", "x");
    const result = await loadHash({
      pool,
      redis,
      source: await source("empty_table"),
      hash,
      batchRows: 1000,
    });
    expect(result.fields).toBe(0);
    expect(await redis.exists(hash)).toBe(0);
  });

  it("keeps the old hash and leaves no staging key when the query fails half-way", async () => {
    const hash = newHash();
    await redis.hset(hash, "old", "kept");
    // Row 30 makes the scalar subquery return two rows, after 29 rows streamed.
    const failing = await source(
      "many",
      "SELECT id, IF(id < 30, 1, (SELECT 1 UNION SELECT 2)) AS x FROM many ORDER BY id",
    );
    const load = loadHash({ pool, redis, source: failing, hash, batchRows: 5 });
    await expect(load).rejects.toBeInstanceOf(ConfigError);
    await expect(load).rejects.toThrow(/^LOADER_QUERY: MySQL could not run/);
    expect(await redis.hgetall(hash)).toEqual({ old: "kept" });
    expect(await stagingKeys(hash)).toEqual([]);
  });

  it("refuses a missing table and a table without a primary key with a message naming LOADER_TABLE", async () => {
    await expect(source("no_such_table")).rejects.toThrow(
      /^LOADER_TABLE: table "no_such_table" does not exist/,
    );
    await expect(source("nokey")).rejects.toThrow(/^LOADER_TABLE: table "nokey" has no primary key/);
  });
});
