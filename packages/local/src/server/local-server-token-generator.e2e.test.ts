import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base, errorOf, localServer, start } from "./testing/local-server-fixture";

beforeAll(() => localServer.open());
afterAll(localServer.close);

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
