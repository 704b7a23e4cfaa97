import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { PassThrough } from "node:stream";
import { silentLogger } from "@table-archiver/core/logging";
import { createRedisClient } from "@table-archiver/core/redis";
import {
  createTestDatabase,
  type TestDatabase,
  testRedisUrl,
  uniqueName,
} from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadLocalConfig } from "../config/load-local-config";
import { buildLocalServer, type LocalServer } from "../server/build-local-server";
import type { CliIo } from "./cli-io";
import { daysCommand, runDaysCommand } from "./days-command";

const redis = createRedisClient({ url: testRedisUrl, auth: undefined });
const table = uniqueName("orders");
const days = ["2021-01-02", "2020-02-29", "2021-01-01"];
let db: TestDatabase;
const servers: LocalServer[] = [];
const standIns: Server[] = [];

function capture(env: Record<string, string> = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on("data", (chunk) => out.push(String(chunk)));
  stderr.on("data", (chunk) => err.push(String(chunk)));
  const io: CliIo = { env, stdin: new PassThrough(), stdout, stderr };
  return { io, out: () => out.join(""), err: () => err.join("") };
}

/** A local stack on an ephemeral port; the client finds it through PORT, as it finds `pnpm dev`. */
async function localStack(env: Record<string, string>) {
  const config = loadLocalConfig({
    MYSQL_URL: db.url,
    REDIS_URL: testRedisUrl,
    LOCAL_TOKEN_SECRET: "d".repeat(32),
    ...env,
  });
  const server = await buildLocalServer({ config, redis, logger: silentLogger });
  servers.push(server);
  const base = await server.listen({ port: 0 });
  return { ...env, PORT: new URL(base).port };
}

/** A stand-in for a deployed function: records requests, answers with `reply` (or never). */
async function standIn(reply?: (headers: IncomingHttpHeaders, body: string) => [number, unknown]) {
  const seen: { url: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      seen.push({ url: req.url ?? "", headers: req.headers, body });
      if (!reply) return;
      const [status, answer] = reply(req.headers, body);
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  });
  standIns.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

beforeAll(async () => {
  db = await createTestDatabase("days_cli");
  await redis.sadd(`mig_${table}`, ...days);
});

afterAll(async () => {
  for (const server of servers) await server.close();
  for (const server of standIns) {
    server.closeAllConnections();
    server.close();
  }
  await redis.del(`mig_${table}`);
  await redis.quit();
  await db.drop();
});

describe("archiver days against the local stack", () => {
  it("prints the migrated days one per line, oldest first", async () => {
    const run = capture(await localStack({ APP_ENV: "debug" }));
    expect(await runDaysCommand({ table }, run.io)).toBe(0);
    expect(run.out()).toBe("2020-02-29\n2021-01-01\n2021-01-02\n");
  });

  it("prints a JSON array with --json, through the commander command", async () => {
    const run = capture(await localStack({ APP_ENV: "debug" }));
    let exit: number | undefined;
    await daysCommand(run.io, {
      onExit: (code) => {
        exit = code;
      },
    }).parseAsync(["--table", table, "--json"], { from: "user" });
    expect([exit, JSON.parse(run.out())]).toEqual([0, [...days].sort()]);
  });

  it("asks for the token of DEBUG_UIDS' first uid, which the server requires", async () => {
    const env = await localStack({ APP_ENV: "debug", DEBUG_UIDS: "carol,dave" });
    const run = capture(env);
    expect(await runDaysCommand({ table }, run.io)).toBe(0);
    const refused = capture(env);
    expect(await runDaysCommand({ table, uid: "mallory" }, refused.io)).toBe(1);
    expect(refused.err()).toMatch(/no local token for uid "mallory": 403/);
  });

  it("says to set APP_ENV=debug when the stack issues no tokens", async () => {
    const run = capture(await localStack({ APP_ENV: "local" }));
    expect(await runDaysCommand({ table }, run.io)).toBe(1);
    expect(run.err()).toMatch(/issues no tokens: start it with APP_ENV=debug/);
  });

  it("says to start the stack when nothing listens on PORT", async () => {
    const { url } = await standIn(() => [200, []]);
    const port = new URL(url).port;
    await new Promise((resolve) => standIns.pop()?.close(resolve));
    const run = capture({ PORT: port });
    expect(await runDaysCommand({ table }, run.io)).toBe(1);
    expect(run.err()).toMatch(
      /cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); is the local stack running/,
    );
  });

  it("throws a usage error for the caller, without exiting, when --table is missing", async () => {
    const run = capture();
    await expect(daysCommand(run.io).parseAsync([], { from: "user" })).rejects.toMatchObject({
      code: "commander.missingMandatoryOptionValue",
      exitCode: 1,
    });
    expect(run.err()).toMatch(/--table/);
  });

  it("refuses a table name the reader would refuse, before any call", async () => {
    const run = capture();
    expect(await runDaysCommand({ table: "x*" }, run.io)).toBe(2);
    expect(run.err()).toMatch(/--table/);
  });
});

describe("archiver days --url (deployed function)", () => {
  it("sends a bearer identity token whose audience is the function URL", async () => {
    const fn = await standIn(() => [200, ["2020-01-01"]]);
    const audiences: string[] = [];
    const idToken = async (audience: string) => {
      audiences.push(audience);
      return "id-token-123";
    };
    const run = capture();
    expect(await runDaysCommand({ table, url: `${fn.url}/` }, run.io, { idToken })).toBe(0);
    expect(run.out()).toBe("2020-01-01\n");
    expect(audiences).toEqual([fn.url]);
    expect(fn.seen).toEqual([
      {
        url: "/loadRedisData",
        headers: expect.objectContaining({
          authorization: "bearer id-token-123",
          "content-type": "application/json",
        }),
        body: JSON.stringify({ method: "getSet", data: `mig_${table}` }),
      },
    ]);
  });

  it("takes a URL that already ends in /loadRedisData as the audience and the endpoint", async () => {
    const fn = await standIn(() => [200, []]);
    const audiences: string[] = [];
    const run = capture();
    const url = `${fn.url}/loadRedisData`;
    const idToken = async (audience: string) => {
      audiences.push(audience);
      return "t";
    };
    await runDaysCommand({ table, url }, run.io, { idToken });
    expect([audiences, fn.seen.map((r) => r.url)]).toEqual([[url], ["/loadRedisData"]]);
  });

  it("reports the function's error answer on one line", async () => {
    const stack = await localStack({ APP_ENV: "debug" });
    const run = capture();
    const code = await runDaysCommand(
      { table, url: `http://127.0.0.1:${stack.PORT}`, token: "not-a-jwt" },
      run.io,
    );
    expect(code).toBe(1);
    expect(run.err()).toMatch(/answered 401: UNAUTHENTICATED: /);
  });

  it("gives up after the time-out with a clear message", async () => {
    const silent = await standIn();
    const run = capture();
    const started = Date.now();
    const code = await runDaysCommand({ table, url: silent.url }, run.io, {
      idToken: async () => "t",
      timeoutMs: 300,
    });
    expect(code).toBe(1);
    expect(run.err()).toMatch(/no answer from http:\/\/127\.0\.0\.1:\d+\/loadRedisData within 0\.3 s/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("explains how to pass a token when none can be fetched", async () => {
    const run = capture();
    const code = await runDaysCommand({ table, url: "https://example.invalid/fn" }, run.io, {
      idToken: async () => {
        throw new Error("Could not load the default credentials");
      },
    });
    expect(code).toBe(1);
    expect(run.err()).toMatch(/could not get a Google identity token .*--token/);
  });
});
