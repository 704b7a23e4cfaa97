import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import mysql from "mysql2/promise";

/**
 * Helpers for tests that talk to the real MySQL/MariaDB and Redis. Each test
 * file makes its own database and unique names so files never share state.
 * TEST_MYSQL_URL / TEST_REDIS_URL point them elsewhere.
 */
export const testMysqlServerUrl = process.env.TEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306";
export const testRedisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/**
 * Four hex digits that every uniqueName of this test run carries right after
 * its `_`. The services project's global setup (test-leak-check.ts) picks them
 * so that no key, database or user holds them yet, and after the run reports
 * whatever still carries them: a test that left something behind. Outside
 * such a run they are random.
 */
export const testRunTag = /^[0-9a-f]{4}$/.test(process.env.ARCHIVER_TEST_RUN ?? "")
  ? (process.env.ARCHIVER_TEST_RUN as string)
  : randomBytes(2).toString("hex");

/** Every name uniqueName made in this module instance: vitest gives each test file its own. */
const made: string[] = [];

/** A short random name safe as an identifier: `prefix_<run tag>ab12cd`. */
export function uniqueName(prefix: string): string {
  const name = `${prefix}_${testRunTag}${randomBytes(3).toString("hex")}`;
  made.push(name);
  return name;
}

/** The names this test file made with uniqueName, for the leak check (leak-check.setup.ts). */
export function namesMadeHere(): readonly string[] {
  return made;
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
  await deleteKeysMatching(redis, `${prefix}:*`);
}

/**
 * Deletes every record the archiver keeps in Redis for these tables: the
 * migrated-days set `mig_<table>`, and whatever lives under `archiver:` and
 * ends in the table or in the table and a day (copy records, cleanup state
 * of each day, leases, cleaned days). Queue keys live under the queue's
 * prefix: deleteKeysWithPrefix.
 */
export async function deleteTableRecords(redis: Redis, tables: Iterable<string>): Promise<void> {
  for (const table of tables) {
    await redis.del(`mig_${table}`, `archiver:copied:${table}`);
    await deleteKeysMatching(redis, `archiver:*:${table}`);
    await deleteKeysMatching(redis, `archiver:*:${table}:*`);
  }
}

/** On the test Redis: deletes every key under these prefixes and every record of these tables. */
export async function deleteTestKeys(names: {
  readonly prefixes?: Iterable<string>;
  readonly tables?: Iterable<string>;
}): Promise<void> {
  const redis = new Redis(testRedisUrl, { lazyConnect: true });
  try {
    for (const prefix of names.prefixes ?? []) await deleteKeysWithPrefix(redis, prefix);
    await deleteTableRecords(redis, names.tables ?? []);
  } finally {
    redis.disconnect();
  }
}

async function deleteKeysMatching(redis: Redis, match: string): Promise<void> {
  for await (const keys of redis.scanStream({ match, count: 1000 }) as AsyncIterable<string[]>) {
    if (keys.length > 0) await redis.del(...keys);
  }
}

/**
 * Adds to `tables` the table named by every call of `target`'s methods (their
 * first argument, when it is a string, or its `table` when it is a day such as
 * `{ table, day }`), wrapping them in place: so that a ledger or cleanup state
 * shared by reference reports every table it wrote for, and the test can
 * delete those records (deleteTableRecords).
 */
export function collectTables<T extends object>(target: T, tables: Set<string>): T {
  const methods = target as Record<string, unknown>;
  for (const [name, value] of Object.entries(methods)) {
    if (typeof value !== "function") continue;
    methods[name] = (...args: unknown[]) => {
      const table = tableNamedBy(args[0]);
      if (table !== undefined) tables.add(table);
      return value(...args);
    };
  }
  return target;
}

function tableNamedBy(argument: unknown): string | undefined {
  if (typeof argument === "string") return argument;
  const table = (argument as { table?: unknown } | null | undefined)?.table;
  return typeof table === "string" ? table : undefined;
}
