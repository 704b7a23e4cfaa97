import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { testRedisUrl, uniqueName } from "@table-archiver/core/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildIfStale, runBuilt } from "./testing/built-cli";
import { type CliSandbox, openCliSandbox } from "./testing/cli-sandbox";

/**
 * Each command through the bundle (bin/archiver.mjs running dist/cli), not the
 * sources: a bundle can break what the sources do (a CommonJS library's named
 * exports lost to a dynamic import, a file a library reads beside itself).
 * publish and status --json run end to end in built-cli.e2e.test.ts.
 */
let sandbox: CliSandbox;
let reader: Server;
let readerUrl: string;
/** What the stand-in for a deployed reader was asked: its authorization header and body. */
const asked: { authorization?: string; body: string }[] = [];
const table = uniqueName("orders");
const token = "test-identity-token";

beforeAll(async () => {
  await buildIfStale();
  sandbox = await openCliSandbox("built-cli-commands", {
    // No Google credentials to find, and no wait for a metadata server: the auth library fails at once.
    METADATA_SERVER_DETECTION: "none",
  });
  await sandbox.db.connection.query(
    `CREATE TABLE ${table} (id INT AUTO_INCREMENT PRIMARY KEY, created_at DATETIME NOT NULL, KEY (created_at))`,
  );
  await sandbox.db.connection.query(`INSERT INTO ${table} (created_at) VALUES ?`, [
    Array.from({ length: 4 }, (_, i) => [`2020-02-0${1 + (i % 2)} 10:00:00`]),
  ]);
  reader = await standInReader();
  readerUrl = `http://127.0.0.1:${(reader.address() as AddressInfo).port}`;
}, 180_000);

afterAll(async () => {
  await new Promise((resolve) => reader?.close(resolve));
  await sandbox?.close([table]);
});

/**
 * A deployed loadRedisData as the CLI meets it: it asks for a Google identity
 * token (401 without a bearer) and answers getSet from the sandbox's Redis.
 */
async function standInReader(): Promise<Server> {
  const server = createServer(async (request, response) => {
    const body = await text(request);
    asked.push({ authorization: request.headers.authorization, body });
    response.setHeader("content-type", "application/json");
    if (request.headers.authorization !== `bearer ${token}`) {
      response
        .writeHead(401)
        .end(JSON.stringify({ error: { code: 401, message: "identity token required" } }));
      return;
    }
    const { data } = JSON.parse(body) as { data: string };
    const redis = new Redis(testRedisUrl);
    try {
      response.end(JSON.stringify((await redis.smembers(data)).sort()));
    } finally {
      redis.disconnect();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

async function text(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const archiver = (argv: readonly string[]) => runBuilt(argv, sandbox.env, sandbox.dir);

describe("each command of the built CLI", () => {
  it("publish queues a migration and worker --drain copies it", async () => {
    const migration = JSON.stringify({
      years_to_migrate: 1,
      months_to_migrate: 0,
      source_tables: [table],
      destination_tables: [`${table}_archive`],
      filter_columns: ["created_at"],
    });
    const published = await archiver(["publish", "--message", migration]);
    expect(published).toMatchObject({ code: 0, stderr: "" });
    expect(published.stdout).toContain(`accepted: ${table}: 2 days enqueued (2020-02-01 .. 2020-02-02)`);

    const worked = await archiver(["worker", "--drain"]);
    expect(worked).toMatchObject({ code: 0, stderr: "" });
    expect(worked.stdout).toContain("2 days copied (4 rows); 0 failed for good");
  });

  it("status reports the copied days", async () => {
    const status = await archiver(["status"]);
    expect(status).toMatchObject({ code: 0, stderr: "" });
    expect(status.stdout).toMatch(new RegExp(`${table}.*2020-02-01.*2020-02-02`));
  });

  it("check reports what the sandbox's account may do for the table", async () => {
    const checked = await archiver(["check", "--table", table]);
    expect(checked).toMatchObject({ code: 0, stderr: "" });
    expect(checked.stdout).toContain(" on MariaDB");
    expect(checked.stdout).toMatch(/ok {7}copy: read .*: SELECT/);
  });

  it("days --url --token reads the migrated days from a deployed reader", async () => {
    const days = await archiver(["days", "--url", readerUrl, "--table", table, "--token", token]);
    expect(days).toEqual({ code: 0, stdout: "2020-02-01\n2020-02-02\n", stderr: "" });
    expect(asked.at(-1)).toEqual({
      authorization: `bearer ${token}`,
      body: JSON.stringify({ method: "getSet", data: `mig_${table}` }),
    });
  });

  it("days --url without --token asks google-auth-library for an ID token client and says it has no credentials", async () => {
    const before = asked.length;
    const days = await archiver(["days", "--url", readerUrl, "--table", table]);
    expect(days.stderr).not.toContain("is not a constructor");
    expect(days).toEqual({
      code: 1,
      stdout: "",
      stderr: expect.stringContaining(
        `error: could not get a Google identity token for ${readerUrl}: Could not load the default credentials.`,
      ),
    });
    expect(days.stderr).toContain('pass --token "$(gcloud auth print-identity-token)"');
    // It stopped at the token: the reader was never called without one.
    expect(asked.length).toBe(before);
  });
});
