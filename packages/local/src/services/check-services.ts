import { messageOf } from "@table-archiver/core";
import type { Config } from "@table-archiver/core/config";
import { mysqlConnectionOptions } from "@table-archiver/core/mysql";
import { createRedisClient } from "@table-archiver/core/redis";
import mysql from "mysql2/promise";

const HOW_TO_START = {
  mysql:
    "start it with `docker compose up -d mysql` (compose.yaml in the repo root), or your MySQL 8 / MariaDB 10.6+ service, and check MYSQL_URL",
  redis:
    "start it with `docker compose up -d redis` (compose.yaml in the repo root), or `redis-server --daemonize yes`, and check REDIS_URL",
};

/**
 * Connects to MySQL and Redis once with short time-outs and returns one line
 * per service that cannot be reached, naming it and saying how to start it.
 * MySQL is checked at the server level so a database that the demo is about
 * to create does not count as unreachable.
 */
export async function unreachableServices(config: Config): Promise<string[]> {
  const problems = await Promise.all([checkMysql(config), checkRedis(config)]);
  return problems.filter((p): p is string => p !== undefined);
}

async function checkMysql(config: Config): Promise<string | undefined> {
  const url = new URL(config.mysql.url);
  try {
    // As the runtime connects: through the Cloud SQL connector or with TLS when configured.
    const production = await mysqlConnectionOptions(config.mysql);
    try {
      const connection = await mysql.createConnection({
        host: url.hostname,
        port: Number(url.port || 3306),
        user: decodeURIComponent(url.username),
        password: config.mysql.password ?? decodeURIComponent(url.password),
        connectTimeout: 3000,
        ...production.options,
      });
      await connection.end();
    } finally {
      await production.close();
    }
    return undefined;
  } catch (error) {
    return `cannot reach MySQL at ${url.host} (${describe(error)}): ${HOW_TO_START.mysql}`;
  }
}

async function checkRedis(config: Config): Promise<string | undefined> {
  // As the runtime connects (REDIS_AUTH, REDIS_TLS_CA), but trying once.
  const redis = createRedisClient(config.redis, {
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch (error) {
    return `cannot reach Redis at ${new URL(config.redis.url).host} (${describe(error)}): ${HOW_TO_START.redis}`;
  } finally {
    redis.disconnect();
  }
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : messageOf(error);
}
