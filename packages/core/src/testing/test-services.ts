import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import mysql from "mysql2/promise";

/**
 * Helpers for tests that talk to the real MySQL/MariaDB and Redis. Each test
 * file makes its own database and unique names so files never share state.
 * TEST_MYSQL_URL / TEST_REDIS_URL point them elsewhere.
 */
export const testMysqlServerUrl = process.env.TEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306";
export const testRedisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** A short random name safe as an identifier: `prefix_ab12cd34`. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(4).toString("hex")}`;
}

export interface TestDatabase {
  readonly name: string;
  /** MYSQL_URL for this database. */
  readonly url: string;
  /** A connection to it, for arranging and inspecting data. */
  readonly connection: mysql.Connection;
  drop(): Promise<void>;
}

/** Creates an empty database with a unique name; `drop()` removes it. */
export async function createTestDatabase(prefix = "archiver_test"): Promise<TestDatabase> {
  const name = uniqueName(prefix);
  const admin = await mysql.createConnection({ uri: testMysqlServerUrl });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.end();
  const url = `${testMysqlServerUrl}/${name}`;
  const connection = await mysql.createConnection({
    uri: url,
    multipleStatements: true,
    timezone: "Z",
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
  return {
    name,
    url,
    connection,
    async drop() {
      await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await connection.end();
    },
  };
}

/** Deletes every Redis key under `prefix:`, a batch of SCAN at a time (tests give each run its own prefix). */
export async function deleteKeysWithPrefix(redis: Redis, prefix: string): Promise<void> {
  for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 1000 }) as AsyncIterable<
    string[]
  >) {
    if (keys.length > 0) await redis.del(...keys);
  }
}
