import * as functions from "@google-cloud/functions-framework";
import { silentLogger } from "@table-archiver/core/logging";
import { createRedisClient } from "@table-archiver/core/redis";
import {
  createTestDatabase,
  type TestDatabase,
  testRedisUrl,
  uniqueName,
} from "@table-archiver/core/testing";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadLocalConfig } from "../config/load-local-config";
import { buildLocalServer, type LocalServer } from "./build-local-server";
import { mountRegisteredFunction } from "./mount-functions";
import { requireBearer } from "./route-guards";

const SECRET = "s".repeat(40);
const redis = createRedisClient({ url: testRedisUrl, auth: undefined });
let db: TestDatabase;
let now = new Date("2030-01-01T00:00:00Z");
let base: string;
const started: LocalServer[] = [];

async function start(
  env: Record<string, string>,
  extra: Partial<Parameters<typeof buildLocalServer>[0]> = {},
) {
  const config = loadLocalConfig({
    MYSQL_URL: db.url,
    REDIS_URL: testRedisUrl,
    LOCAL_TOKEN_SECRET: SECRET,
    LOG_LEVEL: "error",
    ...env,
  });
  const local = await buildLocalServer({ config, ...extra });
  started.push(local);
  return { local, base: await local.listen({ port: 0 }) };
}

async function tokenFor(uid: string, at = base): Promise<string> {
  const response = await fetch(`${at}/api/tokenGenerators?uid=${uid}`);
  return ((await response.json()) as { token: string }).token;
}

async function errorOf(response: Response): Promise<[number, string]> {
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(Object.keys(body)).toEqual(["error"]);
  expect(typeof body.error.message).toBe("string");
  return [response.status, body.error.code];
}

const table = uniqueName("orders");

beforeAll(async () => {
  db = await createTestDatabase("local_server");
  await redis.sadd(`mig_${table}`, "2020-01-02", "2019-05-01", "2020-01-01");
  await redis.sadd("mig_x*", "2000-01-01");
  const clock = () => now;
  ({ base } = await start(
    { APP_ENV: "debug", DEBUG_UIDS: "alice, bob", LOCAL_TOKEN_TTL_SECONDS: "600" },
    { clock, redis },
  ));
});

afterAll(async () => {
  for (const local of started) await local.close();
  await redis.del(`mig_${table}`, "mig_x*");
  await redis.quit();
  await db.drop();
});

describe("GET /api/tokenGenerators", () => {
  it("issues a Bearer token for a uid of DEBUG_UIDS", async () => {
    const response = await fetch(`${base}/api/tokenGenerators?uid=bob`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({
      token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      tokenType: "Bearer",
      expiresIn: 600,
    });
    const claims = JSON.parse(Buffer.from(String(body.token).split(".")[1] ?? "", "base64url").toString());
    expect(claims).toEqual({ sub: "bob", iss: "table-archiver-local", iat: 1893456000, exp: 1893456600 });
  });

  it.each([
    ["no uid", "", 400],
    ["an empty uid", "?uid=", 400],
    ["a uid with a space", "?uid=a%20b", 400],
    ["a uid of 129 characters", `?uid=${"a".repeat(129)}`, 400],
    ["a uid given twice", "?uid=alice&uid=bob", 400],
    ["a uid outside DEBUG_UIDS", "?uid=mallory", 403],
  ])("answers %s with %i", async (_label, query, status) => {
    const [got, code] = await errorOf(await fetch(`${base}/api/tokenGenerators${query}`));
    expect(got).toBe(status);
    expect(code).toBe(status === 400 ? "INVALID_INPUT" : "FORBIDDEN");
  });

  it("answers another method with 405", async () => {
    const response = await fetch(`${base}/api/tokenGenerators?uid=alice`, { method: "POST" });
    expect(response.headers.get("allow")).toBe("GET");
    expect(await errorOf(response)).toEqual([405, "METHOD_NOT_ALLOWED"]);
  });

  it("does not exist outside the debug environment", async () => {
    const other = await start({ APP_ENV: "local" });
    expect(await errorOf(await fetch(`${other.base}/api/tokenGenerators?uid=alice`))).toEqual([
      404,
      "NOT_FOUND",
    ]);
  });

  it("issues tokens to any well-formed uid when DEBUG_UIDS is unset", async () => {
    const open = await start({ APP_ENV: "debug" });
    expect((await fetch(`${open.base}/api/tokenGenerators?uid=anyone@example.com`)).status).toBe(200);
  });
});

describe("local tokens on POST /api/loadRedisData", () => {
  const post = (authorization?: string) =>
    fetch(`${base}/api/loadRedisData`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
      body: JSON.stringify({ confirm: "no" }),
    });
  const sign = (claims: { iss?: string; sub?: string; exp?: number }, secret = SECRET) => {
    const iat = Math.floor(now.getTime() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(claims.sub ?? "alice")
      .setIssuer(claims.iss ?? "table-archiver-local")
      .setIssuedAt(iat)
      .setExpirationTime(claims.exp ?? iat + 60)
      .sign(new TextEncoder().encode(secret));
  };

  it("lets a valid token through to the body check (400, not 401)", async () => {
    expect(await errorOf(await post(`Bearer ${await tokenFor("alice")}`))).toEqual([400, "INVALID_INPUT"]);
    expect(await errorOf(await post(`bearer ${await tokenFor("alice")}`))).toEqual([400, "INVALID_INPUT"]);
  });

  it("answers 401 without a token, or with another scheme", async () => {
    const response = await post();
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await errorOf(response)).toEqual([401, "UNAUTHENTICATED"]);
    expect(await errorOf(await post(`Basic ${Buffer.from("alice:x").toString("base64")}`))).toEqual([
      401,
      "UNAUTHENTICATED",
    ]);
  });

  it("answers 401 for a tampered token", async () => {
    const [header, , signature] = (await tokenFor("alice")).split(".");
    const payload = Buffer.from(
      JSON.stringify({ sub: "bob", iss: "table-archiver-local", iat: 1893456000, exp: 1999999999 }),
    ).toString("base64url");
    expect(await errorOf(await post(`Bearer ${header}.${payload}.${signature}`))).toEqual([
      401,
      "UNAUTHENTICATED",
    ]);
    const flipped = `${signature?.slice(0, -2)}${signature?.endsWith("AA") ? "BB" : "AA"}`;
    const original = (await tokenFor("alice")).split(".");
    expect(await errorOf(await post(`Bearer ${original[0]}.${original[1]}.${flipped}`))).toEqual([
      401,
      "UNAUTHENTICATED",
    ]);
  });

  it("answers 401 for a token of another issuer, another secret, or no signature", async () => {
    expect(await errorOf(await post(`Bearer ${await sign({ iss: "someone-else" })}`))).toEqual([
      401,
      "UNAUTHENTICATED",
    ]);
    expect(await errorOf(await post(`Bearer ${await sign({}, "t".repeat(40))}`))).toEqual([
      401,
      "UNAUTHENTICATED",
    ]);
    const unsigned = [
      Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url"),
      Buffer.from(
        JSON.stringify({ sub: "alice", iss: "table-archiver-local", iat: 1, exp: 1999999999 }),
      ).toString("base64url"),
      "",
    ].join(".");
    expect(await errorOf(await post(`Bearer ${unsigned}`))).toEqual([401, "UNAUTHENTICATED"]);
  });

  it("accepts a token until it expires and answers 401 after", async () => {
    const token = await tokenFor("alice");
    const issuedAt = now;
    try {
      now = new Date(issuedAt.getTime() + 599_000);
      expect((await post(`Bearer ${token}`)).status).toBe(400);
      now = new Date(issuedAt.getTime() + 601_000);
      const response = await post(`Bearer ${token}`);
      const body = (await response.json()) as { error: { message: string } };
      expect([response.status, body.error.message]).toEqual([401, expect.stringMatching(/expired/)]);
    } finally {
      now = issuedAt;
    }
  });

  it("answers 403 for a token whose uid left DEBUG_UIDS", async () => {
    expect(await errorOf(await post(`Bearer ${await sign({ sub: "mallory" })}`))).toEqual([403, "FORBIDDEN"]);
  });
});

describe("the reader at /loadRedisData", () => {
  const read = async (data: unknown, init: RequestInit = {}) =>
    fetch(`${base}/loadRedisData`, {
      method: "POST",
      headers: { authorization: `Bearer ${await tokenFor("alice")}`, "content-type": "application/json" },
      body: JSON.stringify({ method: "getSet", data }),
      ...init,
    });

  it("answers the days sorted ascending, so function_url is base_url", async () => {
    const response = await read(`mig_${table}`);
    expect([response.status, await response.json()]).toEqual([
      200,
      ["2019-05-01", "2020-01-01", "2020-01-02"],
    ]);
    expect(await (await read(`mig_${uniqueName("none")}`)).json()).toEqual([]);
  });

  it("answers each refusal in the error shape", async () => {
    const auth = { authorization: `Bearer ${await tokenFor("alice")}` };
    expect(await errorOf(await read("mig_x*"))).toEqual([403, "FORBIDDEN"]);
    expect(await errorOf(await read("transportitas"))).toEqual([403, "FORBIDDEN"]);
    expect(await errorOf(await read(7))).toEqual([400, "INVALID_INPUT"]);
    expect(await errorOf(await read("mig_t", { body: "{oops" }))).toEqual([400, "INVALID_INPUT"]);
    const big = JSON.stringify({ method: "getSet", data: "mig_t", pad: "x".repeat(17_000) });
    expect(await errorOf(await read("mig_t", { body: big }))).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    expect(await errorOf(await fetch(`${base}/loadRedisData`, { headers: auth }))).toEqual([
      405,
      "METHOD_NOT_ALLOWED",
    ]);
    expect(await errorOf(await read("mig_t", { headers: {} }))).toEqual([401, "UNAUTHENTICATED"]);
  });

  it("answers 503 within a few seconds when Redis is down", async () => {
    const down = createRedisClient({ url: "redis://127.0.0.1:1", auth: undefined });
    const broken = await start(
      { APP_ENV: "debug" },
      { redis: down, redisTimeoutMs: 1500, logger: silentLogger },
    );
    try {
      const begun = Date.now();
      const response = await fetch(`${broken.base}/loadRedisData`, {
        method: "POST",
        headers: { authorization: `Bearer ${await tokenFor("x", broken.base)}` },
        body: JSON.stringify({ method: "getSet", data: `mig_${table}` }),
      });
      expect(await errorOf(response)).toEqual([503, "TRANSIENT"]);
      expect(Date.now() - begun).toBeLessThan(3000);
    } finally {
      down.disconnect();
    }
  });
});

describe("a Functions Framework function mounted on the local server", () => {
  it("receives the body as the framework parses it, behind the token check", async () => {
    functions.http("localEchoTest", (req, res) => {
      res.status(201).json({ method: req.method, body: req.body });
    });
    const config = loadLocalConfig({
      APP_ENV: "debug",
      LOCAL_TOKEN_SECRET: SECRET,
      MYSQL_URL: db.url,
      REDIS_URL: testRedisUrl,
    });
    const echo = await buildLocalServer({ config, redis });
    started.push(echo);
    mountRegisteredFunction(echo.app, {
      path: "/localEchoTest",
      name: "localEchoTest",
      guard: requireBearer(echo.tokens),
    });
    const at = await echo.listen({ port: 0 });
    const response = await fetch(`${at}/localEchoTest`, {
      method: "POST",
      headers: { authorization: `Bearer ${await tokenFor("alice", at)}`, "content-type": "application/json" },
      body: JSON.stringify({ hello: ["world"] }),
    });
    expect([response.status, await response.json()]).toEqual([
      201,
      { method: "POST", body: { hello: ["world"] } },
    ]);
    expect((await fetch(`${at}/localEchoTest`, { method: "POST", body: "{}" })).status).toBe(401);
  });
});
