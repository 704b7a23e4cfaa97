import "dotenv/config";
import { rm } from "node:fs/promises";
import { createJsonLogger, createRuntime, cutoffDay, loadConfig } from "@table-archiver/core";
import mysql from "mysql2/promise";
import { processIo, writeLine } from "../cli/cli-io";
import { publishCommand } from "../cli/publish-command";
import { unreachableServices } from "../services/check-services";
import { demoEnv } from "./demo-env";
import { showDemoResult } from "./demo-result";
import { createDemoTable, DEMO_DATABASE, DEMO_DESTINATION, DEMO_TABLE } from "./demo-table";
import { resetDemoState } from "./reset-demo-state";

const io = processIo();
const env = demoEnv(process.env);

/**
 * The demo: two years of orders, a migration of everything older than one
 * year, worked through the real entry function, queue and task handler.
 * Each run starts from a clean demo database, queue and warehouse.
 */
async function main(): Promise<number> {
  const config = loadConfig(env);
  const down = await unreachableServices(config);
  if (down.length > 0) {
    for (const line of down) writeLine(io.stderr, `demo: ${line}`);
    return 1;
  }
  // First, as it refuses to touch Redis state that is not the demo's.
  await resetDemoState(config);
  const url = new URL(config.mysql.url);
  const server = await mysql.createConnection({
    uri: `${url.protocol}//${url.username}:${url.password}@${url.host}`,
    ...(config.mysql.password ? { password: config.mysql.password } : {}),
  });
  await server.query(`CREATE DATABASE IF NOT EXISTS \`${DEMO_DATABASE}\` CHARACTER SET utf8mb4`);
  await server.query(`USE \`${DEMO_DATABASE}\``);
  await server.query("SET time_zone = '+00:00'");

  writeLine(io.stdout, `demo: creating ${DEMO_DATABASE}.${DEMO_TABLE} with about two years of orders ...`);
  const today = new Date();
  const rows = await createDemoTable(server, { days: 730, perDay: 300, today });
  if (config.warehouse.kind === "duckdb") {
    await rm(config.warehouse.path, { force: true });
    await rm(`${config.warehouse.path}.wal`, { force: true });
  }
  writeLine(io.stdout, `demo: ${rows} rows created`);

  const runtime = await createRuntime(config, { logger: quietLogger() });
  try {
    const message = {
      years_to_migrate: 1,
      months_to_migrate: 0,
      source_tables: [DEMO_TABLE],
      destination_tables: [DEMO_DESTINATION],
      filter_columns: ["created_at"],
      tasks_enqueued_limit: 400,
    };
    writeLine(io.stdout, `demo: pnpm archiver publish --wait --message '${JSON.stringify(message)}'`);
    const started = performance.now();
    const code = await publishCommand(runtime, { message: JSON.stringify(message), wait: true }, io);
    const seconds = (performance.now() - started) / 1000;
    const cutoff = cutoffDay(runtime.clock(), config.timeZone, 1, 0);
    await showDemoResult(runtime, server, { cutoff, seconds }, io);
    return code;
  } finally {
    await runtime.close();
    await server.end();
  }
}

/** Warnings and errors only, on stderr: the demo's own lines tell the story. */
function quietLogger() {
  return createJsonLogger({ level: "warn", write: (line) => process.stderr.write(`${line}\n`) });
}

process.exitCode = await main().catch((error: unknown) => {
  writeLine(io.stderr, `demo: ${error instanceof Error ? error.message : String(error)}`);
  return 1;
});
