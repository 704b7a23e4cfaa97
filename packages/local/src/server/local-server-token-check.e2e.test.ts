import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base, errorOf, localServer, SECRET, START, tokenFor } from "./testing/local-server-fixture";

// The server's clock: a test moves it to let a token expire.
let now = START;

beforeAll(() => localServer.open(() => now));
afterAll(localServer.close);

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
