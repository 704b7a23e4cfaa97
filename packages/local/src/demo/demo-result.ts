import { parseDestination } from "@table-archiver/core";
import { silentLogger } from "@table-archiver/core/logging";
import type { Runtime } from "@table-archiver/core/runtime";
import type { Connection } from "mysql2/promise";
import { type CliIo, writeLine } from "../cli/cli-io";
import { fetchMigratedDays } from "../cli/days-command";
import { localSettingsSchema } from "../config/load-local-config";
import { buildLocalServer } from "../server/build-local-server";
import type { DemoSettings } from "./demo-env";

/** Prints the summary: days, rows, rows/s, both counts side by side, and the members of mig_<table>. */
export async function showDemoResult(
  runtime: Runtime,
  db: Connection,
  demo: Pick<DemoSettings, "table" | "destination">,
  run: { cutoff: string; seconds: number },
  io: CliIo,
): Promise<void> {
  const [[source]] = (await db.query(`SELECT COUNT(*) AS n FROM \`${demo.table}\` WHERE created_at < ?`, [
    `${run.cutoff} 00:00:00`,
  ])) as unknown as [[{ n: number | string }]];
  const warehouse = await runtime.warehouse();
  const copied = await warehouse.countRows(parseDestination(demo.destination, runtime.destinations));
  const days = await runtime.storeLedger.migratedDays(demo.table);
  const rows = Number(source.n);
  writeLine(io.stdout, "");
  writeLine(
    io.stdout,
    `summary: cutoff ${run.cutoff}; ${days.length} days migrated (${days[0]} .. ${days.at(-1)})`,
  );
  writeLine(
    io.stdout,
    `summary: MySQL rows before the cutoff ${rows}; warehouse rows ${copied}; ${rows === copied ? "equal" : "DIFFERENT"}`,
  );
  writeLine(
    io.stdout,
    `summary: ${Math.round(copied / run.seconds)} rows/s over ${run.seconds.toFixed(1)} s`,
  );
  await showGetSetAnswer(runtime, demo.table, io);
}

/**
 * Asks the reader function `loadRedisData` for `mig_<table>` over HTTP, as an
 * operator would. The server is the demo's own, on a free port, and so is its
 * token: signed with a secret of its own, for a uid that no DEBUG_UIDS
 * restricts, so a `.env` made for `pnpm dev` (DEBUG_UIDS, LOCAL_TOKEN_SECRET,
 * PORT, ...) changes nothing here.
 */
async function showGetSetAnswer(runtime: Runtime, table: string, io: CliIo): Promise<void> {
  // The local deployment's defaults, whatever the environment says: no DEBUG_UIDS, a secret of its own.
  const config = { ...runtime.config, local: localSettingsSchema.parse({}) };
  const server = await buildLocalServer({ config, logger: silentLogger });
  try {
    const base = await server.listen({ port: 0, host: "127.0.0.1" });
    const { token } = await server.tokens.issue("demo");
    const days = await fetchMigratedDays({ table, url: base, token }, io.env);
    writeLine(io.stdout, "");
    writeLine(io.stdout, `POST ${base}/loadRedisData {"method":"getSet","data":"mig_${table}"}`);
    writeLine(io.stdout, `answered the ${days.length} members of mig_${table}:`);
    writeLine(io.stdout, JSON.stringify(days));
  } finally {
    await server.close();
  }
}
