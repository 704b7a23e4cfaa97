import { parseDestination, type Runtime, silentLogger } from "@table-archiver/core";
import type { Connection } from "mysql2/promise";
import { type CliIo, writeLine } from "../cli/cli-io";
import { fetchMigratedDays } from "../cli/days-command";
import { buildLocalServer } from "../server/build-local-server";
import { DEMO_DESTINATION, DEMO_TABLE } from "./demo-table";

/** Prints the summary: days, rows, rows/s, both counts side by side, and the members of mig_orders. */
export async function showDemoResult(
  runtime: Runtime,
  db: Connection,
  run: { cutoff: string; seconds: number },
  io: CliIo,
): Promise<void> {
  const [[source]] = (await db.query(`SELECT COUNT(*) AS n FROM \`${DEMO_TABLE}\` WHERE created_at < ?`, [
    `${run.cutoff} 00:00:00`,
  ])) as unknown as [[{ n: number | string }]];
  const warehouse = await runtime.warehouse();
  const copied = await warehouse.countRows(
    parseDestination(DEMO_DESTINATION, { field: "destination", ...runtime.destinations }),
  );
  const days = await runtime.ledger.migratedDays(DEMO_TABLE);
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
  await showGetSetAnswer(runtime, io);
}

/** Asks the reader function `loadRedisData` for `mig_orders` over HTTP, as an operator would. */
async function showGetSetAnswer(runtime: Runtime, io: CliIo): Promise<void> {
  const server = await buildLocalServer({ config: runtime.config, logger: silentLogger });
  try {
    const base = await server.listen({ port: 0, host: "127.0.0.1" });
    const { token } = await server.tokens.issue("demo");
    const days = await fetchMigratedDays({ table: DEMO_TABLE, url: base, token }, io.env);
    writeLine(io.stdout, "");
    writeLine(io.stdout, `POST ${base}/loadRedisData {"method":"getSet","data":"mig_${DEMO_TABLE}"}`);
    writeLine(io.stdout, `answered the ${days.length} members of mig_${DEMO_TABLE}:`);
    writeLine(io.stdout, JSON.stringify(days));
  } finally {
    await server.close();
  }
}
