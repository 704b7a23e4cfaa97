import "dotenv/config";
import { archiverErrorCode, messageOf } from "@table-archiver/core";
import { createJsonLogger } from "@table-archiver/core/logging";
import { closeSharedRuntime } from "@table-archiver/core/runtime";
import { loadLocalConfig } from "../config/load-local-config";
import { readPolicyFile } from "../schedules/policy-file";
import { buildLocalServer, type LocalServer } from "./build-local-server";
import { startDevWorker } from "./start-dev-worker";

/**
 * `pnpm dev`: the local stack on PORT (default 3000): the API
 * service, the functions and a queue worker, all in this process. Prints its
 * URLs; Ctrl-C, or SIGTERM/SIGINT to this process or to the `pnpm dev` that
 * started it, stops it: the script `exec`s node (no tsx or shell in between
 * that pnpm's signal would stop while this process lived on, holding the port
 * and the DuckDB file).
 */
/**
 * A stack that cannot start (a bad variable, the port taken) says why in one
 * `error: ` line, as the CLI does, rather than with a stack trace; exit 2 for
 * bad configuration, 1 otherwise.
 */
async function orExit<T>(start: () => T | Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    process.stderr.write(`error: ${messageOf(error)}\n`);
    process.exit(archiverErrorCode(error) === "INVALID_CONFIG" ? 2 : 1);
  }
}

const config = await orExit(() => loadLocalConfig());
// A broken policy file stops the stack before anything listens or any schedule changes.
const policiesFile = config.local.policiesFile;
const policies = policiesFile ? await orExit(() => readPolicyFile(policiesFile)) : undefined;
const logger = createJsonLogger({ level: config.logLevel, base: { component: "local-stack" } });
const server: LocalServer = await orExit(() => buildLocalServer({ config, logger, archiverFunctions: true }));
const base = await orExit(() => server.listen());
const worker = await startDevWorker(policies);

const lines = [
  `table-archiver local stack on ${base}  (base_url = function_url)`,
  config.local.appEnv === "debug"
    ? `  GET  ${base}/api/tokenGenerators?uid=<uid>   a local access token`
    : `  GET  ${base}/api/tokenGenerators  off: APP_ENV=${config.local.appEnv}; set APP_ENV=debug to issue tokens`,
  `  POST ${base}/api/loadRedisData               {"confirm":"yes"}: load the hash ${config.local.loader.hash}`,
  `  POST ${base}/loadRedisData                   {"method":"getSet","data":"mig_<table>"}`,
  ...Object.entries(server.functions).map(([name, state]) =>
    state.mounted ? `  POST ${base}/${name}` : `  ${name}: not mounted (${state.reason})`,
  ),
  "close" in worker
    ? `  queue worker: working jobs-migration${policies ? `, ${policies.length} retention ${policies.length === 1 ? "policy" : "policies"} scheduled` : ""}`
    : `  queue worker: not started (${worker.reason})`,
];
process.stdout.write(`${lines.join("\n")}\n`);

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info(`stopping on ${signal}`);
  // A request or task that does not end lets go of nothing: after 10 s the process ends regardless.
  setTimeout(() => process.exit(1), 10_000).unref();
  await Promise.allSettled([server.close(), "close" in worker ? worker.close() : undefined]);
  // Only once nothing can still be using it: the worker's tasks and the functions' requests share it.
  await closeSharedRuntime().catch(() => {});
  process.exit(0);
}
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));
