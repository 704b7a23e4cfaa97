import { createRedisClient } from "@table-archiver/core/redis";
import {
  createTestDatabase,
  type TestDatabase,
  testRedisUrl,
  uniqueName,
} from "@table-archiver/core/testing";
import { expect } from "vitest";
import { loadLocalConfig } from "../../config/load-local-config";
import { buildLocalServer, type LocalServer } from "../build-local-server";

/**
 * A local server in the debug environment (DEBUG_UIDS alice and bob, tokens
 * for 600 s) on a database of the test file's own, and Redis holding the days
 * of `table`: started in the file's beforeAll; it and every server the file
 * started, the keys and the database go in its afterAll. vitest gives each
 * test file its own instance of this module.
 */
export const SECRET = "s".repeat(40);
/** The server's clock unless the file brings its own: tokens are issued at 2030-01-01T00:00:00Z. */
export const START = new Date("2030-01-01T00:00:00Z");
export const redis = createRedisClient({ url: testRedisUrl, auth: undefined });
export let db: TestDatabase;
export let base: string;
export const started: LocalServer[] = [];
/** The table whose migrated days Redis holds (mig_<table>). */
export const table = uniqueName("orders");

export async function start(
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

export async function tokenFor(uid: string, at = base): Promise<string> {
  const response = await fetch(`${at}/api/tokenGenerators?uid=${uid}`);
  return ((await response.json()) as { token: string }).token;
}

export async function errorOf(response: Response): Promise<[number, string]> {
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(Object.keys(body)).toEqual(["error"]);
  expect(typeof body.error.message).toBe("string");
  return [response.status, body.error.code];
}

export const localServer = {
  async open(clock: () => Date = () => START): Promise<void> {
    db = await createTestDatabase("local_server");
    await redis.sadd(`mig_${table}`, "2020-01-02", "2019-05-01", "2020-01-01");
    await redis.sadd("mig_x*", "2000-01-01");
    ({ base } = await start(
      { APP_ENV: "debug", DEBUG_UIDS: "alice, bob", LOCAL_TOKEN_TTL_SECONDS: "600" },
      { clock, redis },
    ));
  },
  async close(): Promise<void> {
    for (const local of started) await local.close();
    await redis.del(`mig_${table}`, "mig_x*");
    await redis.quit();
    await db.drop();
  },
};
