import "dotenv/config";
import { rm } from "node:fs/promises";
import { createRuntime, cutoffDay, loadConfig } from "@table-archiver/core";
import mysql from "mysql2/promise";
import { processIo, writeLine } from "../cli/cli-io";
import { publishCommand } from "../cli/publish-command";
import { unreachableServices } from "../services/check-services";
import { showDemoResult } from "./demo-result";
import { createDemoTable, DEMO_DESTINATION, DEMO_TABLE } from "./demo-table";
import { resetDemoState } from "./reset-demo-state";

const io = processIo();
const env = {
  MYSQL_URL: "mysql://root@127.0.0.1:3306/archiver_demo",
  DUCKDB_PATH: ".data/demo-warehouse.duckdb",
  LOCAL_QUEUE_PREFIX: "archiver-demo",
  ...process.env,
};

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
  const url = new URL(config.mysql.url);
  const database = url.pathname.slice(1) || "archiver_demo";
  const server = await mysql.createConnection({
    uri: `${url.protocol}//${url.username}:${url.password}@${url.host}`,
  });
  await server.query(`CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4`);
  await server.query(`USE \`${database}\``);
  await server.query("SET time_zone = '+00:00'");

  writeLine(io.stdout, `demo: creating ${database}.${DEMO_TABLE} with about two years of orders ...`);
  const today = new Date();
  const rows = await createDemoTable(server, { days: 730, perDay: 300, today });
  await resetDemoState(config);
  await rm(config.warehouse.kind === "duckdb" ? config.warehouse.path : "", { force: true });
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

function quietLogger() {
  const write = (line: string) => process.stderr.write(`${line}\n`);
  return {
    debug: () => {},
    info: () => {},
    warn: (message: string, fields?: object) =>
      write(JSON.stringify({ severity: "WARNING", message, ...fields })),
    error: (message: string, fields?: object) =>
      write(JSON.stringify({ severity: "ERROR", message, ...fields })),
  };
}

process.exitCode = await main();
