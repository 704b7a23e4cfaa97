import { cutoffDay, messageOf } from "@table-archiver/core";
import { loadConfig } from "@table-archiver/core/config";
import { createJsonLogger } from "@table-archiver/core/logging";
import { createRuntime } from "@table-archiver/core/runtime";
import mysql from "mysql2/promise";
import { type CliIo, writeLine } from "../cli/cli-io";
import { publishCommand } from "../cli/publish-command";
import { unreachableServices } from "../services/check-services";
import { continueCommands, type DemoSettings, demoEnv, demoSettings } from "./demo-env";
import { showDemoResult } from "./demo-result";
import { createDemoTable } from "./demo-table";
import { resetDemoState } from "./reset-demo-state";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The demo: two years of orders, a migration of everything older than one
 * year, worked through the real entry function, queue and task handler.
 * Each run starts from a fresh demo table and forgets the table's earlier
 * records, queue jobs and warehouse copy; it works where `pnpm archiver`
 * looks by default, and ends with the commands that carry on from there.
 * `env` is the environment with `.env` applied; returns the exit code.
 */
export async function runDemo(env: Env, io: CliIo): Promise<number> {
  try {
    return await demo(env, io);
  } catch (error) {
    writeLine(io.stderr, `demo: ${messageOf(error)}`);
    return 1;
  }
}

async function demo(env: Env, io: CliIo): Promise<number> {
  const settings = demoSettings(env);
  const runtimeEnv = demoEnv(env, settings);
  const config = loadConfig(runtimeEnv);
  const down = await unreachableServices(config);
  if (down.length > 0) {
    for (const line of down) writeLine(io.stderr, `demo: ${line}`);
    return 1;
  }
  // First, as it refuses to touch state that is not the demo's.
  await resetDemoState(config, settings);
  const url = new URL(config.mysql.url);
  const server = await mysql.createConnection({
    uri: `${url.protocol}//${url.username}:${url.password}@${url.host}`,
    ...(config.mysql.password ? { password: config.mysql.password } : {}),
  });
  let code: number;
  try {
    await server.query(`CREATE DATABASE IF NOT EXISTS \`${settings.database}\` CHARACTER SET utf8mb4`);
    await server.query(`USE \`${settings.database}\``);
    await server.query("SET time_zone = '+00:00'");
    code = await migrate(config, server, settings, io);
  } finally {
    await server.end();
  }
  writeLine(io.stdout, "");
  writeLine(io.stdout, "demo: carry on with the archiver CLI on the demo's data:");
  for (const line of continueCommands(env, runtimeEnv, settings.table)) writeLine(io.stdout, `  ${line}`);
  if (new URL(runtimeEnv.MYSQL_URL ?? "").password) {
    writeLine(io.stdout, "  (*** stands for the password of your MYSQL_URL)");
  }
  return code;
}

async function migrate(
  config: ReturnType<typeof loadConfig>,
  server: mysql.Connection,
  settings: DemoSettings,
  io: CliIo,
): Promise<number> {
  writeLine(
    io.stdout,
    `demo: creating ${settings.database}.${settings.table} with ${settings.days} days of orders ...`,
  );
  const rows = await createDemoTable(server, {
    table: settings.table,
    days: settings.days,
    perDay: settings.perDay,
    today: new Date(),
  });
  writeLine(io.stdout, `demo: ${rows} rows created`);

  const runtime = await createRuntime(config, { logger: quietLogger(io) });
  try {
    const message = {
      years_to_migrate: 1,
      months_to_migrate: 0,
      source_tables: [settings.table],
      destination_tables: [settings.destination],
      filter_columns: ["created_at"],
      tasks_enqueued_limit: settings.days,
    };
    writeLine(io.stdout, `demo: pnpm archiver publish --wait --message '${JSON.stringify(message)}'`);
    const started = performance.now();
    const code = await publishCommand(runtime, { message: JSON.stringify(message), wait: true }, io);
    const seconds = (performance.now() - started) / 1000;
    const cutoff = cutoffDay(runtime.clock(), config.timeZone, 1, 0);
    await showDemoResult(runtime, server, settings, { cutoff, seconds }, io);
    return code;
  } finally {
    await runtime.close();
  }
}

/** Warnings and errors only, on stderr: the demo's own lines tell the story. */
function quietLogger(io: CliIo) {
  return createJsonLogger({ level: "warn", write: (line) => io.stderr.write(`${line}\n`) });
}
