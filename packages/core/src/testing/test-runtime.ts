import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createJsonLogger } from "../adapters/logging/json-logger";
import { createRedisClient } from "../adapters/redis/create-redis-client";
import { loadConfig } from "../config";
import { createRuntime } from "../runtime/create-runtime";
import type { Runtime } from "../runtime/runtime";
import {
  collectTables,
  deleteKeysWithPrefix,
  deleteTableRecords,
  testRedisUrl,
  uniqueName,
} from "./test-services";

export interface LogLine {
  readonly severity: string;
  readonly message: string;
  readonly [field: string]: unknown;
}

export interface TestRuntime {
  readonly runtime: Runtime;
  /** Every line the runtime logged, parsed. */
  readonly logs: LogLine[];
  readonly duckdbPath: string;
  readonly queuePrefix: string;
  /** Every table the runtime's ledger or cleanup state was asked about. */
  readonly tables: ReadonlySet<string>;
  /** Closes the runtime, deletes what it wrote in Redis (its queue and its tables' records) and its DuckDB folder. */
  close(): Promise<void>;
}

/**
 * A runtime on the embedded default wired to a test database, a fresh DuckDB
 * file, a queue prefix of its own and a fixed clock. `close()` leaves nothing
 * of it in Redis.
 */
export async function createTestRuntime(options: {
  readonly mysqlUrl: string;
  readonly now?: string;
  readonly env?: Readonly<Record<string, string>>;
}): Promise<TestRuntime> {
  const duckdbPath = join(await mkdtemp(join(tmpdir(), "archiver-test-")), "warehouse.duckdb");
  const queuePrefix = uniqueName("test");
  const config = loadConfig({
    MYSQL_URL: options.mysqlUrl,
    REDIS_URL: testRedisUrl,
    DUCKDB_PATH: duckdbPath,
    LOCAL_QUEUE_PREFIX: queuePrefix,
    TASK_ATTEMPTS: "3",
    ...options.env,
  });
  const logs: LogLine[] = [];
  const logger = createJsonLogger({ level: "debug", write: (line) => logs.push(JSON.parse(line)) });
  const now = options.now;
  const runtime = await createRuntime(config, {
    logger,
    ...(now === undefined ? {} : { clock: () => new Date(now) }),
  });
  const tables = new Set<string>();
  // The ledger and cleanup state are shared by reference across the runtime's parts.
  collectTables(runtime.storeLedger, tables);
  collectTables(runtime.cleanup.state, tables);
  return {
    runtime,
    logs,
    duckdbPath,
    queuePrefix,
    tables,
    async close() {
      await runtime.close();
      const redis = createRedisClient(config.redis);
      try {
        await deleteKeysWithPrefix(redis, queuePrefix);
        await deleteTableRecords(redis, tables);
      } finally {
        redis.disconnect();
        // The warehouse's folder too: each test runtime makes its own in the system temp directory.
        await rm(dirname(duckdbPath), { recursive: true, force: true });
      }
    },
  };
}
