import { Redis } from "ioredis";
import mysql from "mysql2/promise";
import { testMysqlServerUrl, testRedisUrl } from "./test-services";

/**
 * What tests leave in MySQL and Redis, found by name: every name a test makes
 * (uniqueName) carries the run's tag right after its `_`, so whatever still
 * holds one after the tests is theirs, whoever else is using the same servers.
 */
export interface Leftovers {
  /** Redis keys, by database number. */
  readonly keys: ReadonlyMap<number, readonly string[]>;
  readonly databases: readonly string[];
  /** MySQL accounts, as `'user'@'host'`. */
  readonly users: readonly string[];
}

export function isEmpty(left: Leftovers): boolean {
  return left.keys.size === 0 && left.databases.length === 0 && left.users.length === 0;
}

/**
 * Everything in the test Redis (every database that holds keys) and MySQL
 * whose name contains `_<tag>` and, when `names` is given, one of them.
 */
export async function findLeftovers(tag: string, names?: readonly string[]): Promise<Leftovers> {
  const ours = (name: string) =>
    name.includes(`_${tag}`) && (names === undefined || names.some((n) => name.includes(n)));
  const keys = new Map<number, string[]>();
  await withRedis(async (redis) => {
    for (const db of await keyspaces(redis)) {
      await redis.select(db);
      const found = new Set<string>();
      for await (const batch of redis.scanStream({ match: `*_${tag}*`, count: 1000 }) as AsyncIterable<
        string[]
      >) {
        for (const key of batch) if (ours(key)) found.add(key);
      }
      if (found.size > 0) keys.set(db, [...found].sort());
    }
  });
  const { databases, users } = await withMysql(async (connection) => {
    const [dbRows] = await connection.query("SHOW DATABASES");
    const databases = (dbRows as Record<string, string>[]).map((row) => Object.values(row)[0] ?? "");
    let users: string[] = [];
    try {
      const [userRows] = await connection.query("SELECT User AS user, Host AS host FROM mysql.user");
      users = (userRows as { user: string; host: string }[])
        .filter((row) => ours(row.user))
        .map((row) => `'${row.user}'@'${row.host}'`);
    } catch {
      // An account without access to mysql.user cannot see users; databases are still checked.
    }
    return { databases: databases.filter(ours).sort(), users: users.sort() };
  });
  return { keys, databases, users };
}

/** Deletes the leftovers, so that one leaking run does not leave them for everyone else. */
export async function removeLeftovers(left: Leftovers): Promise<void> {
  if (left.keys.size > 0) {
    await withRedis(async (redis) => {
      for (const [db, keys] of left.keys) {
        await redis.select(db);
        for (let start = 0; start < keys.length; start += 500)
          await redis.del(...keys.slice(start, start + 500));
      }
    });
  }
  if (left.databases.length > 0 || left.users.length > 0) {
    await withMysql(async (connection) => {
      for (const name of left.databases) await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
      for (const user of left.users) await connection.query(`DROP USER IF EXISTS ${user}`);
    });
  }
}

/** One line per kind, with the names (the first 20 of each). */
export function describeLeftovers(left: Leftovers): string {
  const list = (items: readonly string[]) =>
    items.slice(0, 20).join(", ") + (items.length > 20 ? `, ... (${items.length} in all)` : "");
  const lines: string[] = [];
  for (const [db, keys] of left.keys)
    lines.push(`  Redis database ${db}: ${keys.length} keys: ${list(keys)}`);
  if (left.databases.length > 0) lines.push(`  MySQL databases: ${list(left.databases)}`);
  if (left.users.length > 0) lines.push(`  MySQL users: ${list(left.users)}`);
  return lines.join("\n");
}

/** Numbers of the Redis databases that hold keys, from INFO keyspace. */
async function keyspaces(redis: Redis): Promise<number[]> {
  const info = await redis.info("keyspace");
  return [...info.matchAll(/^db(\d+):keys=(\d+)/gm)]
    .filter(([, , count]) => Number(count) > 0)
    .map(([, db]) => Number(db));
}

async function withRedis<T>(work: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(testRedisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    return await work(redis);
  } finally {
    redis.disconnect();
  }
}

async function withMysql<T>(work: (connection: mysql.Connection) => Promise<T>): Promise<T> {
  const connection = await mysql.createConnection({ uri: testMysqlServerUrl });
  try {
    return await work(connection);
  } finally {
    await connection.end();
  }
}
