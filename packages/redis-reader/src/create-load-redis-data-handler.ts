import type { ServerResponse } from "node:http";
import { badRequest, errorBody, toHttpError } from "@table-archiver/core/http";
import { silentLogger } from "@table-archiver/core/logging";
import type { Logger } from "@table-archiver/core/ports";
import { authorizeSetKey } from "./authorize-set-key";
import { parseReaderRequest, type ReaderRequest } from "./parse-reader-request";
import { createSetReader, type SetSource } from "./set-reader";

export interface LoadRedisDataOptions {
  /** The Redis client, asked for on each request so it can be created lazily and only once. */
  readonly redis: () => SetSource;
  readonly logger?: Logger;
  /** Answer 503 when Redis has not answered after this long (default 2000 ms). */
  readonly redisTimeoutMs?: number;
  /**
   * `rebuildSet`: writes back to Redis the days of `table` the warehouse's
   * durable record holds (in `dataset`, else the configured one). Without
   * it, `rebuildSet` is refused with 400.
   */
  readonly rebuild?: (table: string, dataset: string | undefined) => Promise<void>;
}

/** An HTTP function as the Functions Framework calls it (its Request and Response extend these). */
export type LoadRedisDataHandler = (req: ReaderRequest, res: ServerResponse) => Promise<void>;

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * The `loadRedisData` function: `POST {"method":"getSet","data":"mig_<table>"}`
 * answers the members of that set as a JSON array sorted ascending (`[]` for an
 * unknown set). It reads nothing but `mig_<table>` sets. `rebuildSet` (same
 * body, optional `"dataset"`) first rebuilds the set from the durable record,
 * after Redis lost its data, then answers the same way. Errors are answered as
 * `{"error":{"code","message"}}` with their code's status (toHttpError): 400,
 * 403, 405, 413, or 503 when Redis is unreachable.
 */
export function createLoadRedisDataHandler(options: LoadRedisDataOptions): LoadRedisDataHandler {
  const logger = options.logger ?? silentLogger;
  const readSet = createSetReader(options.redis, { timeoutMs: options.redisTimeoutMs ?? 2000 });

  return async (req, res) => {
    try {
      const call = parseReaderRequest(req);
      const key = authorizeSetKey(call.data);
      if (call.method === "rebuildSet") {
        if (!options.rebuild) throw badRequest("method: rebuildSet is not available here");
        await options.rebuild(key.slice("mig_".length), call.dataset);
      }
      const body = await readSet(key);
      res.writeHead(200, { "content-type": JSON_TYPE, "content-length": body.length }).end(body);
    } catch (error) {
      const failure = toHttpError(error);
      if (failure.status >= 500) {
        logger.error(`loadRedisData failed: ${failure.message}`, { code: failure.code, error });
      }
      const body = JSON.stringify(errorBody(failure.code, failure.message));
      res.writeHead(failure.status, { ...failure.headers, "content-type": JSON_TYPE }).end(body);
    }
  };
}
