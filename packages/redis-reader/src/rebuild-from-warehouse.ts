import { rebuildMigratedDays } from "@table-archiver/core";
import type { Config } from "@table-archiver/core/config";
import { badRequest } from "@table-archiver/core/http";
import type { Logger, Warehouse } from "@table-archiver/core/ports";
import { type createRedisClient, createRedisMigrationLedger } from "@table-archiver/core/redis";

type BigQuerySettings = Extract<Config["warehouse"], { kind: "bigquery" }>;

/**
 * The reader's `rebuildSet` where the warehouse is BigQuery (production): the
 * BigQuery client is loaded on the first rebuild only, so `getSet` never pays
 * for it. On DuckDB it refuses: the file belongs to the local worker, and
 * `archiver status --rebuild` does the same.
 */
export function rebuildFromWarehouse(
  /** The instance's configuration, asked for on each rebuild (function.ts parses it once). */
  config: () => Config,
  redis: () => ReturnType<typeof createRedisClient>,
  logger: Logger,
  /** Opens the warehouse; tests pass one on the BigQuery stand-in. */
  openWarehouse: (settings: BigQuerySettings) => Promise<Warehouse> = async (settings) =>
    (await import("@table-archiver/core/bigquery")).createBigQueryWarehouse(settings),
): (table: string, dataset: string | undefined) => Promise<void> {
  let warehouse: Promise<Warehouse> | undefined;
  return async (table, dataset) => {
    const settings = config().warehouse;
    if (settings.kind !== "bigquery") {
      throw badRequest(
        "method: rebuildSet needs the BigQuery warehouse (WAREHOUSE=bigquery); locally, run archiver status --rebuild",
      );
    }
    warehouse ??= openWarehouse(settings);
    const opened = warehouse;
    const restored = await rebuildMigratedDays(
      {
        warehouse: () => opened,
        ledger: createRedisMigrationLedger(redis()),
        logger,
        destinations: { defaultDataset: settings.dataset, allowProject: true },
      },
      { dataset: dataset ?? settings.dataset },
      table,
    );
    logger.info("rebuilt mig_<table> from the durable record", { table, restored: restored.length });
  };
}
