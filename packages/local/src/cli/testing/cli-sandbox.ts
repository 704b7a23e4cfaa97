import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createTestDatabase,
  deleteTestKeys,
  type TestDatabase,
  testRedisUrl,
  uniqueName,
} from "@table-archiver/core/testing";
import { type CliRun, runCaptured } from "./run-captured";

/** What a CLI test file runs the CLI against: its own database, warehouse folder and queue prefix. */
export interface CliSandbox {
  readonly db: TestDatabase;
  /** The folder that holds the warehouse file (DUCKDB_PATH). */
  readonly dir: string;
  /** The environment each command runs with. */
  readonly env: Record<string, string>;
  /** Runs `archiver <argv>` with the sandbox's environment and `overrides`. */
  run(argv: readonly string[], overrides?: Record<string, string>, stdin?: string): Promise<CliRun>;
  /** Drops the database and the folder, and deletes the queue's keys and every record of `tables`. */
  close(tables: Iterable<string>): Promise<void>;
}

/**
 * Opens a sandbox named `name` (its folder and queue prefix start with it):
 * quiet logs and one attempt per task unless `env` says otherwise.
 */
export async function openCliSandbox(name: string, env: Record<string, string> = {}): Promise<CliSandbox> {
  const db = await createTestDatabase();
  const dir = await mkdtemp(join(tmpdir(), `${name}-`));
  const sandboxEnv = {
    MYSQL_URL: db.url,
    REDIS_URL: testRedisUrl,
    DUCKDB_PATH: join(dir, "w.duckdb"),
    LOCAL_QUEUE_PREFIX: uniqueName(name.replaceAll("-", "")),
    LOG_LEVEL: "error",
    TASK_ATTEMPTS: "1",
    ...env,
  };
  return {
    db,
    dir,
    env: sandboxEnv,
    run: (argv, overrides = {}, stdin = "") => runCaptured(argv, { ...sandboxEnv, ...overrides }, stdin),
    async close(tables) {
      await rm(dir, { recursive: true, force: true });
      await deleteTestKeys({ prefixes: [sandboxEnv.LOCAL_QUEUE_PREFIX], tables });
      await db.drop();
    },
  };
}
