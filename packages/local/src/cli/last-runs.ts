import { existsSync } from "node:fs";
import { messageOf, parseDestination, type RetentionPolicy } from "@table-archiver/core";
import type { Config } from "@table-archiver/core/config";
import type { DatasetRef, RunRecordStore } from "@table-archiver/core/ports";
import type { LastRun, LastRunSource } from "./policy-status";
import { count, number } from "./wording";

/** How long status waits for a DuckDB file a worker holds: it holds it as long as it runs, so briefly. */
const LOCK_WAIT_MS = 300;

/**
 * The last run of each policy's table, read from the run history the
 * warehouse keeps (`_archiver_runs`, RunRecordStore): a migration's row is in
 * its destination's dataset, a cleanup's in the default one. The warehouse is
 * opened on the first read only, so plain `status` still opens none; a DuckDB
 * file a running worker holds is not waited for, and status says it was not
 * read rather than failing.
 */
export function warehouseLastRuns(
  config: Config,
  policies: readonly RetentionPolicy[],
): { readonly lastRun: LastRunSource; close(): Promise<void> } {
  let opened: Promise<RunRecordStore & { close(): Promise<void> }> | undefined;
  const open = async () => {
    if (config.warehouse.kind === "bigquery") {
      return (await import("@table-archiver/core/bigquery")).createBigQueryWarehouse(config.warehouse);
    }
    const { createDuckDbWarehouse } = await import("@table-archiver/core/duckdb");
    return createDuckDbWarehouse({ ...config.warehouse, lockWaitMs: LOCK_WAIT_MS });
  };
  const rules = {
    defaultDataset: config.warehouse.dataset,
    allowProject: config.warehouse.kind === "bigquery",
  };
  return {
    async lastRun(table) {
      const policy = policies.find((p) => p.source_table === table);
      const datasets: DatasetRef[] = [{ dataset: rules.defaultDataset }];
      if (policy) {
        const { project, dataset } = parseDestination(policy.destination_table, rules);
        if (project || dataset !== rules.defaultDataset)
          datasets.push(project ? { project, dataset } : { dataset });
      }
      // Opening a DuckDB file creates it: a warehouse never written to has no run to show, and status makes none.
      const { warehouse } = config;
      if (warehouse.kind === "duckdb" && warehouse.path !== ":memory:" && !existsSync(warehouse.path)) return;
      try {
        opened ??= open();
        const store = await opened;
        const runs = (await Promise.all(datasets.map((at) => store.runs(at, { table, limit: 1 })))).flat();
        const last = runs.sort((a, b) => b.startedAt.localeCompare(a.startedAt))[0];
        return last && lastRunOf(last);
      } catch (error) {
        return { unread: messageOf(error) };
      }
    },
    async close() {
      await (await opened?.catch(() => undefined))?.close();
    },
  };
}

type RunRecord = Awaited<ReturnType<RunRecordStore["runs"]>>[number];

/** `succeeded: 3 days copied, 1,200 rows`; `partial: 2 days cleaned, 1 refused, 1 deferred (dry run)`. */
function lastRunOf(run: RunRecord): LastRun {
  const done =
    run.mode === "migration"
      ? `${count(run.copied, "day")} copied`
      : `${count(run.cleaned, "day")} ${run.dryRun ? "verified" : "cleaned"}`;
  const more = [
    ...(run.refused ? [`${number(run.refused)} refused`] : []),
    ...(run.deferred ? [`${number(run.deferred)} deferred`] : []),
    ...(run.failed ? [`${number(run.failed)} failed`] : []),
  ];
  const rows = run.mode === "migration" || !run.dryRun ? `, ${count(run.rows, "row")}` : "";
  return {
    mode: run.mode,
    startedAt: run.startedAt,
    result: `${run.result}: ${[done, ...more].join(", ")}${rows}${run.dryRun ? " (dry run)" : ""}`,
  };
}
