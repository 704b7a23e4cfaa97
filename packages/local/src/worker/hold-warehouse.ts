import { resolve } from "node:path";
import { messageOf } from "@table-archiver/core";
import type { Runtime } from "@table-archiver/core/runtime";

/** A DuckDB file another process holds; the worker does not start. */
export class WarehouseInUseError extends Error {
  constructor(
    readonly path: string,
    /** The holder as DuckDB names it (`PID 1234, /usr/bin/node`), when it does. */
    readonly holder: string | undefined,
    options?: ErrorOptions,
  ) {
    super(
      `DuckDB file ${path} is in use by another process${holder ? ` (${holder})` : ""}: ` +
        "one local worker per DuckDB file; stop that one, or give this worker another DUCKDB_PATH",
      options,
    );
    this.name = "WarehouseInUseError";
  }
}

/** DuckDB's words for a file another process has locked. */
const LOCKED = /could not set lock on file/i;
const HOLDER = /conflicting lock is held in (.+?) \(PID (\d+)\)/i;

/**
 * The holder named by the warehouse's DuckDbFileInUseError (recognised by
 * name, as it may come from another copy of the core), or by DuckDB's own
 * lock error; null when `error` is neither.
 */
function lockHolder(error: unknown): { holder: string | undefined } | null {
  if (error instanceof Error && error.name === "DuckDbFileInUseError") {
    const { holder } = error as Error & { holder?: unknown };
    return { holder: typeof holder === "string" ? holder : undefined };
  }
  const message = messageOf(error);
  if (!LOCKED.test(message)) return null;
  const holder = HOLDER.exec(message);
  return { holder: holder ? `PID ${holder[2]}, ${holder[1]}` : undefined };
}

/**
 * Opens the warehouse of a local worker before it takes any task, and leaves
 * it open (the runtime keeps it until it closes): DuckDB lets one process at a
 * time open a file, so a second worker on the same file used to take tasks
 * whose every attempt failed on the lock, until they failed for good. Now the
 * second worker stops here (after the warehouse waited a few seconds for the
 * file, in case its holder was a short command), with WarehouseInUseError
 * naming the file and the holder, having taken no task. Nothing to hold for
 * BigQuery or an in-memory DuckDB.
 */
export async function holdWarehouse(runtime: Runtime): Promise<void> {
  const warehouse = runtime.config.warehouse;
  if (warehouse.kind !== "duckdb" || warehouse.path.startsWith(":memory:")) return;
  try {
    await runtime.warehouse();
  } catch (error) {
    const locked = lockHolder(error);
    if (!locked) throw error;
    throw new WarehouseInUseError(resolve(warehouse.path), locked.holder, { cause: error });
  }
}
