import { randomUUID } from "node:crypto";
import { ConfigError, messageOf, TransientError } from "@table-archiver/core";
import { type MysqlPool, mapMysqlError } from "@table-archiver/core/mysql";
import { mapRedisError } from "@table-archiver/core/redis";
import type { Redis } from "ioredis";
import type { LoaderSource } from "./loader-source";
import { fieldName, rowJson } from "./row-json";
import { streamQuery } from "./stream-query";

export interface LoadHashOptions {
  readonly pool: MysqlPool;
  readonly redis: Redis;
  readonly source: LoaderSource;
  /** The hash that receives the rows (LOADER_HASH, default `transportitas`). */
  readonly hash: string;
  /** Rows per HSET batch. */
  readonly batchRows: number;
  /** A batch is also written once its fields and values reach this many bytes (default 4 MB). */
  readonly batchBytes?: number;
  /** Lifetime of the half-built key, renewed with every batch (default 600 s). */
  readonly stagingTtlSeconds?: number;
}

export interface LoadResult {
  readonly hash: string;
  /** Fields of the hash after the load (rows with the same key count once). */
  readonly fields: number;
  readonly tookMs: number;
}

/**
 * The loader: replaces the hash with the source's rows so that no reader ever
 * sees a half-loaded hash. Rows stream from MySQL into a staging key in
 * pipelined HSET batches (memory holds one batch), then one MULTI renames the
 * staging key onto the hash and drops the expiry it carried. The staging key
 * expires on its own if the process dies mid-load, and is deleted when the
 * load fails; the hash keeps its old content in both cases.
 *
 * An empty result deletes the hash: afterwards it holds exactly the rows, none.
 */
export async function loadHash(options: LoadHashOptions): Promise<LoadResult> {
  const started = performance.now();
  const { redis, hash } = options;
  // The hash tag puts the staging key in the hash's cluster slot, which RENAME needs.
  const staging = `{${hash}}:loading:${randomUUID()}`;
  const ttl = options.stagingTtlSeconds ?? 600;
  const maxBytes = options.batchBytes ?? 4 * 1024 * 1024;
  let written = 0;
  try {
    let batch: string[] = [];
    let bytes = 0;
    let keyIndexes: number[] | undefined;
    for await (const row of readRows(options)) {
      keyIndexes ??= keyIndexesOf(options.source, row.columns);
      const field = fieldName(row.values, keyIndexes);
      const value = rowJson(row.columns, row.values);
      batch.push(field, value);
      bytes += field.length + value.length;
      if (batch.length / 2 >= options.batchRows || bytes >= maxBytes) {
        await writeBatch(redis, staging, batch, ttl);
        written += batch.length / 2;
        batch = [];
        bytes = 0;
      }
    }
    if (batch.length > 0) {
      await writeBatch(redis, staging, batch, ttl);
      written += batch.length / 2;
    }
    const fields = written === 0 ? await clear(redis, hash) : await publish(redis, staging, hash);
    return { hash, fields, tookMs: Math.round(performance.now() - started) };
  } catch (error) {
    // Best effort: when Redis is the thing that failed, the expiry cleans up.
    await redis.del(staging).catch(() => {});
    throw mapRedisError(error);
  }
}

async function* readRows(options: LoadHashOptions) {
  const { pool, source } = options;
  try {
    yield* streamQuery(pool, source.sql);
  } catch (error) {
    const mapped = mapMysqlError(error);
    if (mapped instanceof TransientError) throw mapped;
    const message = messageOf(error);
    throw new ConfigError(`${source.variable}: MySQL could not run the loader's query: ${message}`, {
      field: source.variable,
      cause: error,
    });
  }
}

function keyIndexesOf(source: LoaderSource, columns: readonly string[]): number[] {
  if (source.key === "first") return [0];
  return source.key.map((name) => {
    const index = columns.indexOf(name);
    if (index < 0) {
      throw new ConfigError(`${source.variable}: the result has no key column "${name}"`, {
        field: source.variable,
      });
    }
    return index;
  });
}

async function writeBatch(redis: Redis, staging: string, pairs: string[], ttl: number): Promise<void> {
  const results = await redis
    .pipeline()
    .hset(staging, ...pairs)
    .expire(staging, ttl)
    .exec();
  const failed = results?.find(([error]) => error);
  if (failed?.[0]) throw failed[0];
}

/** Renames the staging key onto the hash atomically and makes the result permanent. */
async function publish(redis: Redis, staging: string, hash: string): Promise<number> {
  const results = await redis.multi().rename(staging, hash).persist(hash).hlen(hash).exec();
  const failed = results?.find(([error]) => error);
  if (!results || failed?.[0]) throw failed?.[0] ?? new TransientError("Redis discarded the rename");
  return Number(results[2]?.[1]);
}

async function clear(redis: Redis, hash: string): Promise<number> {
  await redis.del(hash);
  return 0;
}
