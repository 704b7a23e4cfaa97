import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base, localServer, start, table } from "./testing/local-server-fixture";

/**
 * The local server answers only requests addressed to a loopback name: a web
 * page that rebinds its own DNS name to 127.0.0.1 reaches the port, but its
 * requests still carry its own name in `Host`, so it can neither take a token
 * nor call a function. fetch will not send a Host of our choosing, hence
 * node:http.
 */
let withFunctions: string;
let mounted: Record<string, { mounted: boolean }>;

beforeAll(async () => {
  await localServer.open();
  // The archiver's own functions are mounted as `pnpm dev` mounts them.
  const started = await start({ APP_ENV: "debug" }, { archiverFunctions: true });
  ({ base: withFunctions } = started);
  mounted = started.local.functions;
});
afterAll(localServer.close);

interface Answer {
  readonly status: number;
  readonly body: { error?: { code: string; message: string } } & Record<string, unknown>;
}

function send(
  at: string,
  path: string,
  host: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const { port } = new URL(at);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: init.method ?? "GET",
        headers: { ...init.headers, host },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || "{}") }));
      },
    );
    req.on("error", reject);
    req.end(init.body);
  });
}

const portOf = (at: string) => new URL(at).port;

const tokenVia = async (host: string) => send(base, "/api/tokenGenerators?uid=alice", host);

describe("the Host a request names", () => {
  it.each([
    "evil.example:8080",
    "evil.example",
    "127.0.0.1.evil.example",
    "localhost.evil.example",
    "10.0.0.7:3000",
    "[::2]",
  ])("refuses %s on the token route with 403 and says why", async (host) => {
    const answer = await tokenVia(host);
    expect(answer.status).toBe(403);
    expect(answer.body.error?.code).toBe("FORBIDDEN");
    expect(answer.body.error?.message).toMatch(/localhost, 127\.0\.0\.1 and \[::1\]/);
    expect(answer.body).not.toHaveProperty("token");
  });

  it.each(["localhost", "127.0.0.1", "[::1]", "LocalHost"])(
    "accepts %s with any port, and without one",
    async (name) => {
      for (const host of [`${name}:${portOf(base)}`, `${name}:8080`, name]) {
        const answer = await tokenVia(host);
        expect([host, answer.status]).toEqual([host, 200]);
        expect(typeof answer.body.token).toBe("string");
      }
    },
  );

  it("refuses a foreign Host on the reader even with a valid token, and serves localhost", async () => {
    const token = String((await tokenVia(`localhost:${portOf(base)}`)).body.token);
    const read = (host: string) =>
      send(base, "/loadRedisData", host, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ method: "getSet", data: `mig_${table}` }),
      });
    expect((await read("evil.example:8080")).status).toBe(403);
    const local = await read(`localhost:${portOf(base)}`);
    expect(local.status).toBe(200);
    expect(local.body).toEqual(["2019-05-01", "2020-01-01", "2020-01-02"]);
  });

  it.each(["/archiverEntry", "/archiverTaskHandler", "/api/loadRedisData", "/no/such/route"])(
    "refuses a foreign Host on %s before anything else",
    async (path) => {
      // No token: were the Host let through, a function would run on this request (before the fix it did).
      const answer = await send(withFunctions, path, "evil.example:8080", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect([answer.status, answer.body.error?.code]).toEqual([403, "FORBIDDEN"]);
    },
  );

  it("lets localhost through to the functions' own token check", async () => {
    expect(Object.keys(mounted)).toEqual(["archiverEntry", "archiverTaskHandler"]);
    expect(Object.values(mounted).every((state) => state.mounted)).toBe(true);
    for (const path of ["/archiverEntry", "/archiverTaskHandler"]) {
      const answer = await send(withFunctions, path, `localhost:${portOf(withFunctions)}`, {
        method: "POST",
        body: "{}",
      });
      expect([path, answer.status, answer.body.error?.code]).toEqual([path, 401, "UNAUTHENTICATED"]);
    }
  });
});
