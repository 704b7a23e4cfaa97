import { InvalidInputError, isIdentifier, rebuildAllMigratedDays } from "@table-archiver/core";
import type { Runtime } from "@table-archiver/core/runtime";
import { type CliIo, writeLine } from "./cli-io";
import { statusCommand } from "./status-command";
import { count } from "./wording";

/**
 * `archiver status --rebuild [--dataset D]`: writes back to Redis every day
 * the warehouse's durable day record holds and Redis lacks (copy record and
 * `mig_<table>` membership), for every table recorded in dataset D
 * (WAREHOUSE_DATASET by default), then prints the status. For after Redis
 * lost its data; it changes nothing Redis already holds. It opens the
 * warehouse, so a local worker on the same DuckDB file must be stopped first.
 */
export async function rebuildCommand(
  runtime: Runtime,
  options: { readonly dataset?: string; readonly json?: boolean },
  io: CliIo,
): Promise<number> {
  const dataset = options.dataset ?? runtime.config.warehouse.dataset;
  if (!isIdentifier(dataset)) {
    throw new InvalidInputError("dataset", `"${dataset}" is not a valid dataset name (letters, digits, _)`);
  }
  const rebuilt = await rebuildAllMigratedDays(
    {
      // Reads only: a DuckDB file that does not exist is refused, never created.
      warehouse: runtime.cleanup.warehouse,
      ledger: runtime.storeLedger,
      logger: runtime.logger,
      destinations: runtime.destinations,
    },
    { dataset },
  );
  const restored = rebuilt.filter((entry) => entry.restored.length > 0);
  const summary =
    restored.length === 0
      ? `rebuild: Redis already holds every day the durable record of dataset ${dataset} has (${count(rebuilt.length, "table")})`
      : `rebuild: wrote back ${restored.map((entry) => `${entry.table} ${count(entry.restored.length, "day")}`).join(", ")} from the durable record of dataset ${dataset}`;
  writeLine(io.stderr, summary);
  return statusCommand(runtime, options, io);
}
