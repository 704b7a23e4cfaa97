import * as functions from "@google-cloud/functions-framework";
import { loadConfig } from "@table-archiver/core/config";
import { createJsonLogger } from "@table-archiver/core/logging";
import { createRedisClient } from "@table-archiver/core/redis";
import { createLoadRedisDataHandler } from "./create-load-redis-data-handler";

export { authorizeSetKey } from "./authorize-set-key";
export {
  createLoadRedisDataHandler,
  type LoadRedisDataHandler,
  type LoadRedisDataOptions,
} from "./create-load-redis-data-handler";
export { MAX_READER_BODY_BYTES, parseReaderRequest, type ReaderRequest } from "./parse-reader-request";
export { createSetReader, type SetReader, type SetSource } from "./set-reader";

let redis: ReturnType<typeof createRedisClient> | undefined;

// One client per instance, created on the first request (not at import, so
// importing this package for its exports opens no connection) and reused by
// every request after it.
functions.http(
  "loadRedisData",
  createLoadRedisDataHandler({
    redis: () => {
      redis ??= createRedisClient(loadConfig().redis);
      return redis;
    },
    logger: createJsonLogger({ base: { function: "loadRedisData" } }),
  }),
);

/** Closes the instance's Redis client, if one was opened (tests, graceful shutdown). */
export async function closeLoadRedisData(): Promise<void> {
  const client = redis;
  redis = undefined;
  await client?.quit().catch(() => client.disconnect());
}
