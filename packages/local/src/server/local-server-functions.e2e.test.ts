import * as functions from "@google-cloud/functions-framework";
import { silentLogger } from "@table-archiver/core/logging";
import { createRedisClient } from "@table-archiver/core/redis";
import { testRedisUrl, uniqueName } from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadLocalConfig } from "../config/load-local-config";
import { buildLocalServer } from "./build-local-server";
import { mountRegisteredFunction } from "./mount-functions";
import { requireBearer } from "./route-guards";
import {
  base,
  db,
  errorOf,
  localServer,
  redis,
  SECRET,
  start,
  started,
  table,
  tokenFor,
} from "./testing/local-server-fixture";

beforeAll(() => localServer.open());
afterAll(localServer.close);

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
