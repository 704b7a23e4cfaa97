import { Redis, type RedisOptions } from "ioredis";
import type { Config } from "../../config";

/** The part of the configuration a Redis connection needs (REDIS_URL, REDIS_AUTH). */
export type RedisSettings = Config["redis"];

/** Longest pause between reconnect attempts; a long-lived client keeps trying at this pace. */
const MAX_RECONNECT_DELAY_MS = 1_000;

/**
 * Connection options from REDIS_URL, REDIS_AUTH and REDIS_TLS_CA, without any
 * retry policy. REDIS_AUTH, when set, replaces the password in the URL (so the
 * URL can stay in plain config while the secret comes from Secret Manager);
 * `rediss://` turns TLS on, trusting REDIS_TLS_CA when given; a path `/N`
 * selects database N.
 */
export function redisConnectionOptions(settings: RedisSettings): RedisOptions {
  const url = new URL(settings.url);
  const password = settings.auth ?? (url.password ? decodeURIComponent(url.password) : undefined);
  const db = url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0;
  return {
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port ? Number(url.port) : 6379,
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(password ? { password } : {}),
    db: Number.isInteger(db) ? db : 0,
    ...(url.protocol === "rediss:"
      ? { tls: { servername: url.hostname, ...(settings.tlsCa ? { ca: settings.tlsCa } : {}) } }
      : {}),
  };
}

/** A command's answer is given up on after this long (it rejects; the task is retried). */
const COMMAND_TIMEOUT_MS = 5_000;
/**
 * A connection that has sent commands and heard nothing for this long is
 * dead (a failover, a path that drops packets without closing the
 * connection): it is closed and a new one opened. Without it every later
 * command on that socket would time out too, for as long as TCP takes to give
 * up. Twice the command time-out: the commands on it have failed already.
 * Never for BullMQ's worker connections, whose blocking reads are quiet by
 * design (see bullmqConnection).
 */
const SOCKET_TIMEOUT_MS = 2 * COMMAND_TIMEOUT_MS;

/**
 * Options for a client used from a function, a task or a CLI command: a
 * command against an unreachable Redis rejects within a few seconds (one retry
 * after the first failed connect, and a per-command time-out) instead of
 * waiting in the offline queue, and a connection that stopped answering is
 * replaced. Reconnects go on forever with a capped delay, so a warm instance
 * recovers once Redis is back.
 */
export function failFastOptions(): RedisOptions {
  return {
    lazyConnect: false,
    connectTimeout: 3_000,
    commandTimeout: COMMAND_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    retryStrategy: (times) => Math.min(50 * 2 ** times, MAX_RECONNECT_DELAY_MS),
  };
}

/**
 * A Redis client for the ledger and the queue bookkeeping, built from config
 * with the fail-fast policy of `failFastOptions`. Connection errors are not
 * thrown as events (commands reject instead, see mapRedisError); callers own
 * the client and `quit()` it.
 */
export function createRedisClient(settings: RedisSettings, overrides: RedisOptions = {}): Redis {
  const client = new Redis({ ...redisConnectionOptions(settings), ...failFastOptions(), ...overrides });
  // Without a listener ioredis prints every failed reconnect; the failures
  // already reach callers as rejected commands.
  client.on("error", () => {});
  return client;
}
