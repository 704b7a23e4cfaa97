import type { AddressInfo } from "node:net";
import * as functions from "@google-cloud/functions-framework";
import { getTestServer } from "@google-cloud/functions-framework/testing";
import { createRedisClient } from "@table-archiver/core/redis";
import { captureLogLines, testRedisUrl, uniqueName } from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLoadRedisDataHandler } from "./create-load-redis-data-handler";

// The deployed function reads REDIS_URL when its first request arrives.
process.env.REDIS_URL = testRedisUrl;
const { closeLoadRedisData } = await import("./function");

/** Serves a registered function the way the Functions Framework does, on an ephemeral port. */
async function serve(name: string) {
  const server = getTestServer(name);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/loadRedisData`;
  return { url, close: () => new Promise((resolve) => server.close(resolve)) };
}

const redis = createRedisClient({ url: testRedisUrl, auth: undefined });
const table = uniqueName("orders");
const days = ["2021-03-02", "2020-12-31", "2021-01-01", "2019-06-15"];
const tricks = ["mig_x*", "mig_a b", `mig_${"a".repeat(65)}`, "mig_", "mig_a\nb", "mig_[ab]", "mig_?"];
let reader: Awaited<ReturnType<typeof serve>>;

const call = (body: unknown, init: RequestInit = {}) =>
  fetch(reader.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...init,
  });

// The refusals these tests provoke are logged as the function logs them; kept here, out of the run's output.
const logs = captureLogLines();

beforeAll(async () => {
  await redis.sadd(`mig_${table}`, ...days);
  // Sets under the refused names exist, so a refusal cannot be an empty read.
  for (const key of tricks) await redis.sadd(key, "2000-01-01");
  reader = await serve("loadRedisData");
});

afterAll(async () => {
  logs.restore();
  await redis.del(`mig_${table}`, ...tricks);
  await reader.close();
  await closeLoadRedisData();
  await redis.quit();
});

describe("loadRedisData through the Functions Framework", () => {
  it("answers the set's members sorted ascending", async () => {
    const response = await call({ method: "getSet", data: `mig_${table}` });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual([...days].sort());
  });

  it("sees a day recorded after an earlier read", async () => {
    await call({ method: "getSet", data: `mig_${table}` });
    await redis.sadd(`mig_${table}`, "2022-02-02");
    const answer = (await (await call({ method: "getSet", data: `mig_${table}` })).json()) as string[];
    await redis.srem(`mig_${table}`, "2022-02-02");
    expect(answer.at(-1)).toBe("2022-02-02");
  });

  it("answers [] for a set that does not exist", async () => {
    const response = await call({ method: "getSet", data: `mig_${uniqueName("none")}` });
    expect([response.status, await response.json()]).toEqual([200, []]);
  });

  it("answers a 3,650-member set in full", async () => {
    const key = `mig_${uniqueName("decade")}`;
    const members = Array.from({ length: 3650 }, (_, i) =>
      new Date(Date.UTC(2010, 0, 1 + i)).toISOString().slice(0, 10),
    );
    await redis.sadd(key, ...members);
    const answer = await (await call({ method: "getSet", data: key })).json();
    await redis.del(key);
    expect(answer).toEqual(members);
  });

  it("returns members exactly, whatever characters they hold", async () => {
    const key = `mig_${uniqueName("odd")}`;
    const members = ["2020-01-01", 'a/b"c\\d', "ñandú 🚚", "tab\tnew\nline"];
    await redis.sadd(key, ...members);
    const answer = await (await call({ method: "getSet", data: key })).json();
    await redis.del(key);
    expect(answer).toEqual([...members].sort());
  });

  it("answers 500 NOT_A_SET, not a retryable 503, for a key of another type", async () => {
    const key = `mig_${uniqueName("string")}`;
    await redis.set(key, "x");
    const response = await call({ method: "getSet", data: key });
    await redis.del(key);
    expect(response.status).toBe(500);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("NOT_A_SET");
  });

  it.each(tricks)("refuses the key %j with 403 even though it exists", async (key) => {
    const response = await call({ method: "getSet", data: key });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: { code: "FORBIDDEN", message: expect.any(String) } });
  });

  it.each([
    ["an unknown method", { method: "keys", data: `mig_${table}` }],
    ["a missing data", { method: "getSet" }],
    ["numeric data", { method: "getSet", data: 1 }],
    ["array data", { method: "getSet", data: [`mig_${table}`] }],
  ])("answers %s with 400 in the error shape", async (_label, body) => {
    const response = await call(body);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: { code: "INVALID_INPUT", message: expect.any(String) } });
  });

  it("answers malformed JSON with 400", async () => {
    const asText = await call("{not json", { headers: { "content-type": "text/plain" } });
    expect(asText.status).toBe(400);
    expect(((await asText.json()) as { error: { code: string } }).error.code).toBe("INVALID_INPUT");
    // Sent as application/json, the framework's own body parser refuses it
    // before the function runs: the status is 400 but the body is its HTML page.
    expect((await call("{not json")).status).toBe(400);
  });

  it.each(["GET", "PUT", "DELETE"])("answers %s with 405", async (method) => {
    const response = await fetch(reader.url, { method });
    expect([response.status, response.headers.get("allow")]).toEqual([405, "POST"]);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("METHOD_NOT_ALLOWED");
  });

  it("answers a body over 16 KB with 413", async () => {
    const response = await call({ method: "getSet", data: `mig_${table}`, pad: "x".repeat(17 * 1024) });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("PAYLOAD_TOO_LARGE");
  });
});

describe("loadRedisData with Redis unreachable", () => {
  it("answers 503 within a few seconds", async () => {
    const down = createRedisClient({ url: "redis://127.0.0.1:1", auth: undefined });
    functions.http(
      "loadRedisDataDown",
      createLoadRedisDataHandler({ redis: () => down, redisTimeoutMs: 2000 }),
    );
    const server = await serve("loadRedisDataDown");
    try {
      const started = Date.now();
      const response = await fetch(server.url, {
        method: "POST",
        body: JSON.stringify({ method: "getSet", data: `mig_${table}` }),
      });
      expect(response.status).toBe(503);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("TRANSIENT");
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await server.close();
      down.disconnect();
    }
  });
});
