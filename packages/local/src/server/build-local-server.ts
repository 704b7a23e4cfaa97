import type { AddressInfo } from "node:net";
import { createJsonLogger } from "@table-archiver/core/logging";
import { type MysqlPool, openMysqlPool } from "@table-archiver/core/mysql";
import type { Logger } from "@table-archiver/core/ports";
import { createRedisClient } from "@table-archiver/core/redis";
import { createLoadRedisDataHandler } from "@table-archiver/redis-reader";
import Fastify, { type FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import type { LocalConfig } from "../config/load-local-config";
import { installErrorHandling } from "./http-errors";
import { registerLoadRedisData } from "./load-redis-data-route";
import { createLocalTokens, type LocalTokens } from "./local-tokens";
import { type MountReport, mountArchiverFunctions, mountReader } from "./mount-functions";
import { requireBearer, requireLoopbackHost } from "./route-guards";
import { registerTokenGenerator } from "./token-generator-route";

/** Bodies of the API service are tiny; anything larger is refused with 413. */
const API_BODY_LIMIT = 16 * 1024;

export interface LocalServerOptions {
  /** The archiver's configuration and the local deployment's (loadLocalConfig). */
  readonly config: LocalConfig;
  /** Used for the loader and the reader; made from REDIS_URL (and closed on close) when absent. */
  readonly redis?: Redis;
  /** The loader's MySQL pool; made from MYSQL_URL (and closed on close) when absent. */
  readonly mysql?: MysqlPool;
  readonly logger?: Logger;
  /** The time tokens are issued and checked at. */
  readonly clock?: () => Date;
  /** The reader answers 503 when Redis has not answered after this long (default 2000 ms). */
  readonly redisTimeoutMs?: number;
  /** Also mount `archiverEntry` and `archiverTaskHandler` from their packages (as `pnpm dev` does). */
  readonly archiverFunctions?: boolean;
}

export interface LocalServer {
  readonly app: FastifyInstance;
  readonly tokens: LocalTokens;
  /** Which of the archiver's own functions are mounted (empty unless `archiverFunctions`). */
  readonly functions: MountReport;
  /** Starts listening (PORT and HOST unless given; port 0 picks a free one) and returns the base URL. */
  listen(options?: { port?: number; host?: string }): Promise<string>;
  close(): Promise<void>;
}

/**
 * The local deployment as one Fastify server: the API service
 * (`/api/tokenGenerators` in the debug environment, `/api/loadRedisData`) and
 * the functions, the reader at `/loadRedisData` so that locally
 * `{function_url}` equals `{base_url}`. The functions require a local token,
 * as IAM requires an identity token in front of the deployed ones. Every
 * route answers only requests addressed to a loopback name
 * (requireLoopbackHost), so a web page cannot drive it by DNS rebinding.
 */
export async function buildLocalServer(options: LocalServerOptions): Promise<LocalServer> {
  const { config } = options;
  const logger = options.logger ?? createJsonLogger({ level: config.logLevel });
  const redis = options.redis ?? createRedisClient(config.redis);
  const mysql = options.mysql ?? (await openMysqlPool(config));

  const tokens = createLocalTokens({
    secret: config.local.tokenSecret,
    ttlSeconds: config.local.tokenTtlSeconds,
    allowedUids: config.local.debugUids,
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const guard = requireBearer(tokens);

  const app = Fastify({ logger: false, bodyLimit: API_BODY_LIMIT, exposeHeadRoutes: false });
  installErrorHandling(app, logger);
  // First, and on the root, so it runs for every route (the functions' and unknown ones too) before any other check.
  app.addHook("onRequest", requireLoopbackHost());
  if (config.local.appEnv === "debug") {
    registerTokenGenerator(app, { tokens, allowedUids: config.local.debugUids });
  }
  registerLoadRedisData(app, { tokens, mysql, redis, loader: config.local.loader, logger });
  // `curl -d` sends form encoding; the API's bodies are JSON whatever the header says.
  app.addContentTypeParser("*", { parseAs: "string" }, (_req, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  mountReader(
    app,
    createLoadRedisDataHandler({
      redis: () => redis,
      logger,
      redisTimeoutMs: options.redisTimeoutMs ?? 2000,
    }),
    guard,
  );
  const functions = options.archiverFunctions ? await mountArchiverFunctions(app, guard) : {};

  return {
    app,
    tokens,
    functions,
    async listen(at = {}) {
      const host = at.host ?? config.local.host;
      await app.listen({ port: at.port ?? config.local.port, host });
      const { port } = app.server.address() as AddressInfo;
      const reachable =
        host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
      return `http://${reachable}:${port}`;
    },
    async close() {
      await app.close();
      await Promise.allSettled([
        options.redis ? undefined : redis.quit(),
        options.mysql ? undefined : mysql.end(),
      ]);
    },
  };
}
