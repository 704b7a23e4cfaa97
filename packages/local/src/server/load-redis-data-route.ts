import { badRequest } from "@table-archiver/core/http";
import type { MysqlPool } from "@table-archiver/core/mysql";
import type { Logger } from "@table-archiver/core/ports";
import type { FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import type { LocalSettings } from "../config/load-local-config";
import { loadHash } from "../loader/load-hash";
import { resolveLoaderSource } from "../loader/loader-source";
import type { LocalTokens } from "./local-tokens";
import { allowOnly, requireBearer } from "./route-guards";

export interface LoadRedisDataRouteOptions {
  readonly tokens: LocalTokens;
  readonly mysql: MysqlPool;
  readonly redis: Redis;
  readonly loader: LocalSettings["loader"];
  readonly logger: Logger;
}

const EXPECTED = 'expected the JSON body {"confirm":"yes"}';

/**
 * `POST /api/loadRedisData`: with a local token and the body
 * `{"confirm":"yes"}`, replaces the hash LOADER_HASH (default `transportitas`)
 * with the rows of the loader's query and answers `{"hash","fields","tookMs"}`.
 */
export function registerLoadRedisData(app: FastifyInstance, options: LoadRedisDataRouteOptions): void {
  app.all(
    "/api/loadRedisData",
    { onRequest: [allowOnly("POST"), requireBearer(options.tokens)] },
    async (request) => {
      checkConfirmation(request.body);
      const source = await resolveLoaderSource(options.mysql, options.loader);
      const result = await loadHash({
        pool: options.mysql,
        redis: options.redis,
        source,
        hash: options.loader.hash,
        batchRows: options.loader.batchRows,
      });
      options.logger.info(`loaded ${result.fields} fields into ${result.hash}`, {
        uid: request.uid,
        ...result,
      });
      return result;
    },
  );
}

function checkConfirmation(body: unknown): void {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw badRequest(EXPECTED);
  const { confirm, ...others } = body as Record<string, unknown>;
  const extra = Object.keys(others);
  if (extra.length > 0) throw badRequest(`unexpected field ${JSON.stringify(extra[0])}; ${EXPECTED}`);
  if (confirm === undefined) throw badRequest(`confirm: is missing; ${EXPECTED}`);
  if (confirm !== "yes") throw badRequest(`confirm: must be the string "yes"; ${EXPECTED}`);
}
