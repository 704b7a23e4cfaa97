import { silentLogger } from "@table-archiver/core/logging";
import { createMysqlPool } from "@table-archiver/core/mysql";
import { createRedisClient } from "@table-archiver/core/redis";
import {
  createTestDatabase,
  type TestDatabase,
  testRedisUrl,
  uniqueName,
} from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadLocalConfig } from "../config/load-local-config";
import { buildLocalServer, type LocalServer } from "./build-local-server";

const ROWS = 20_000;
const redis = createRedisClient({ url: testRedisUrl, auth: undefined });
const poller = createRedisClient({ url: testRedisUrl, auth: undefined });
let db: TestDatabase;
const servers: LocalServer[] = [];
const hashes: string[] = [];

async function start(
  env: Record<string, string> = {},
  extra: Partial<Parameters<typeof buildLocalServer>[0]> = {},
) {
  const hash = uniqueName("transportitas");
  hashes.push(hash);
  const config = loadLocalConfig({
    MYSQL_URL: db.url,
    REDIS_URL: testRedisUrl,
    APP_ENV: "debug",
    LOCAL_TOKEN_SECRET: "k".repeat(32),
    LOADER_HASH: hash,
    LOG_LEVEL: "error",
    ...env,
  });
  const server = await buildLocalServer({ config, logger: silentLogger, ...extra });
  servers.push(server);
  const base = await server.listen({ port: 0 });
  const { token } = (await (await fetch(`${base}/api/tokenGenerators?uid=tester`)).json()) as {
    token: string;
  };
  // null sends no body at all.
  const load = (body: string | null = '{"confirm":"yes"}', headers: Record<string, string> = {}) =>
    fetch(`${base}/api/loadRedisData`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
      ...(body === null ? {} : { body }),
    });
  return { hash, base, load };
}

async function errorOf(response: Response): Promise<[number, string]> {
  const body = (await response.json()) as { error: { code: string; message: string } };
  return [response.status, body.error.code];
}

beforeAll(async () => {
  db = await createTestDatabase("loader_route");
  await db.connection.query(`
    CREATE TABLE transportitas (
      id INT NOT NULL PRIMARY KEY,
      version CHAR(1) NOT NULL,
      amount DECIMAL(12,2) NOT NULL,
      departed_at DATETIME NOT NULL
    );
    INSERT INTO transportitas
      SELECT seq, 'A', seq / 100, '2024-01-01 00:00:00' + INTERVAL seq MINUTE FROM seq_1_to_${ROWS};
  `);
});

afterAll(async () => {
  for (const server of servers) await server.close();
  if (hashes.length > 0) await redis.del(...hashes);
  await Promise.all([redis.quit(), poller.quit()]);
  await db.drop();
});

describe("POST /api/loadRedisData", () => {
  it("loads every row into the hash and answers hash, fields and tookMs", async () => {
    const { hash, load } = await start();
    const response = await load();
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ hash, fields: ROWS, tookMs: expect.any(Number) });
    expect(await redis.hlen(hash)).toBe(ROWS);
    expect(JSON.parse((await redis.hget(hash, "150")) ?? "")).toEqual({
      id: 150,
      version: "A",
      amount: "1.50",
      departed_at: "2024-01-01 02:30:00",
    });
  });

  it.each([
    ["no body", null],
    ["an empty object", "{}"],
    ["another confirmation", '{"confirm":"no"}'],
    ["a boolean confirmation", '{"confirm":true}'],
    ["an extra field", '{"confirm":"yes","table":"users"}'],
    ["an array", '[{"confirm":"yes"}]'],
    ["malformed JSON", '{"confirm":"yes"'],
  ])("answers %s with 400 and loads nothing", async (_label, body) => {
    const { hash, load } = await start();
    const response = await load(body);
    const payload = (await response.json()) as { error: { code: string; message: string } };
    expect([response.status, payload.error.code]).toEqual([400, "INVALID_INPUT"]);
    if (body?.startsWith("{") && body.endsWith("}")) {
      expect(payload.error.message).toMatch(/\{"confirm":"yes"\}/);
    }
    expect(await redis.exists(hash)).toBe(0);
  });

  it("accepts the confirmation sent without a JSON content type (curl -d)", async () => {
    const { hash, load } = await start();
    const response = await load('{"confirm":"yes"}', { "content-type": "application/x-www-form-urlencoded" });
    expect(response.status).toBe(200);
    expect(await redis.hlen(hash)).toBe(ROWS);
  });

  it("answers a body over 16 KB with 413 and another method with 405", async () => {
    const { load, base } = await start();
    const big = JSON.stringify({ confirm: "yes", pad: "x".repeat(17 * 1024) });
    expect(await errorOf(await load(big))).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    expect(await errorOf(await fetch(`${base}/api/loadRedisData`))).toEqual([405, "METHOD_NOT_ALLOWED"]);
  });

  it("replaces the hash with nothing when the query has no rows", async () => {
    const { hash, load } = await start({ LOADER_QUERY: "SELECT id FROM transportitas WHERE id < 0" });
    await redis.hset(hash, "stale", "1");
    expect(await (await load()).json()).toMatchObject({ hash, fields: 0 });
    expect(await redis.exists(hash)).toBe(0);
  });

  it("answers 503 when MySQL is unreachable, leaving the hash as it was", async () => {
    const mysql = createMysqlPool(
      { url: "mysql://root@127.0.0.1:1/x", password: undefined },
      { connectTimeout: 1000 },
    );
    const { hash, load } = await start({}, { mysql });
    await redis.hset(hash, "kept", "1");
    expect(await errorOf(await load())).toEqual([503, "TRANSIENT"]);
    expect(await redis.hgetall(hash)).toEqual({ kept: "1" });
  });

  it("answers 503 when Redis is unreachable", async () => {
    const down = createRedisClient({ url: "redis://127.0.0.1:1", auth: undefined });
    try {
      const { load } = await start({}, { redis: down });
      expect(await errorOf(await load())).toEqual([503, "TRANSIENT"]);
    } finally {
      down.disconnect();
    }
  });
});

describe("a reader during a load", () => {
  it("never sees a partial hash: before the first load none, then every row of one version", async () => {
    const { hash, load } = await start({ LOADER_BATCH_ROWS: "250" });
    const seen: { fields: number; versions: string[] }[] = [];
    let stagingSeen = 0;
    let loading = true;

    const poll = async () => {
      while (loading) {
        const [fields, staging] = await Promise.all([poller.hlen(hash), poller.keys(`{${hash}}:loading:*`)]);
        if (staging.length > 0) stagingSeen++;
        const all = fields > 0 ? await poller.hgetall(hash) : {};
        const versions = [
          ...new Set(Object.values(all).map((row) => (JSON.parse(row) as { version: string }).version)),
        ];
        seen.push({ fields: Math.max(fields, Object.keys(all).length), versions });
      }
    };

    const polling = poll();
    expect((await load()).status).toBe(200);
    await db.connection.query("UPDATE transportitas SET version = 'B'");
    expect((await load()).status).toBe(200);
    loading = false;
    await polling;

    for (const view of seen) {
      expect([0, ROWS]).toContain(view.fields);
      expect(view.versions.length).toBeLessThanOrEqual(1);
    }
    // The polls overlapped the loads: they saw the half-built staging key.
    expect(stagingSeen).toBeGreaterThan(0);
    expect(seen.length).toBeGreaterThan(5);
    expect(seen.some((view) => view.versions[0] === "A")).toBe(true);
    expect(await redis.ttl(hash)).toBe(-1);
    expect(await redis.keys(`{${hash}}:loading:*`)).toEqual([]);
    await db.connection.query("UPDATE transportitas SET version = 'A'");
  });
});
