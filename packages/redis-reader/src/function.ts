// The deployed Cloud Function: importing this file registers `loadRedisData`
// with the Functions Framework, the entry point infra names.
// scripts/build-function.ts bundles it (package.json "exports" "./function")
// as the bundle's index.js. Everything else imports the package's index.ts,
// which registers nothing and so does not load the Functions Framework.
import * as functions from "@google-cloud/functions-framework";
import { type Config, loadConfig } from "@table-archiver/core/config";
import { createJsonLogger } from "@table-archiver/core/logging";
import { createRedisClient } from "@table-archiver/core/redis";
import { createLoadRedisDataHandler } from "./create-load-redis-data-handler";
import { rebuildFromWarehouse } from "./rebuild-from-warehouse";

let config: Config | undefined;
let redis: ReturnType<typeof createRedisClient> | undefined;

// The configuration and one client per instance, made on the first request
// (not at import, so registering the function opens no connection) and reused
// by every request after it, rebuildSet's included.
const configuration = () => {
  config ??= loadConfig();
  return config;
};
const client = () => {
  redis ??= createRedisClient(configuration().redis);
  return redis;
};
const logger = createJsonLogger({ base: { function: "loadRedisData" } });
functions.http(
  "loadRedisData",
  createLoadRedisDataHandler({
    redis: client,
    logger,
    rebuild: rebuildFromWarehouse(configuration, client, logger),
  }),
);

/** Closes the instance's Redis client, if one was opened (tests, graceful shutdown). */
export async function closeLoadRedisData(): Promise<void> {
  const client = redis;
  redis = undefined;
  await client?.quit().catch(() => client.disconnect());
}
