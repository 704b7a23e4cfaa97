import type { RedisOptions as BullmqRedisOptions } from "bullmq";
import type { RedisOptions } from "ioredis";
import { failFastOptions, type RedisSettings, redisConnectionOptions } from "./create-redis-client";

/**
 * Connection options for BullMQ from config.
 *
 * - `producer` (functions, CLI commands that enqueue or count): fail fast, so a
 *   down Redis answers with an error within seconds instead of hanging.
 * - `worker`: BullMQ's blocking commands need `maxRetriesPerRequest: null`
 *   and no command time-out; the worker waits for Redis to come back.
 */
export function bullmqConnection(settings: RedisSettings, role: "producer" | "worker"): RedisOptions {
  const base = redisConnectionOptions(settings);
  if (role === "producer") return { ...base, ...failFastOptions() };
  return {
    ...base,
    maxRetriesPerRequest: null,
    retryStrategy: (times) => Math.min(100 * 2 ** times, 5_000),
  };
}

/** ioredis options in the shape BullMQ's types accept (they do not allow a null retryStrategy). */
export function asBullmqOptions(options: RedisOptions): BullmqRedisOptions {
  const { retryStrategy, ...rest } = options;
  return retryStrategy ? { ...rest, retryStrategy } : rest;
}
