import { parseDestination, type Runtime } from "@table-archiver/core";
import type { Connection } from "mysql2/promise";
import { type CliIo, writeLine } from "../cli/cli-io";
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
  writeLine(
    io.stdout,
    `summary: members of mig_${DEMO_TABLE} (${days.length}): ${days.slice(0, 5).join(", ")} ... ${days.slice(-3).join(", ")}`,
  );
}
