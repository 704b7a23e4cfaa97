import { existsSync } from "node:fs";
import type { Config } from "@table-archiver/core/config";
import type { RunRecord, RunRecordStore } from "@table-archiver/core/ports";
import { type CliIo, EXIT, writeLine } from "./cli-io";
import { count, number } from "./wording";

export interface RunsOptions {
  /** Only this source table's runs. */
  readonly table?: string;
  /** The dataset whose `_archiver_runs` is read (default WAREHOUSE_DATASET). */
  readonly dataset?: string;
  readonly json?: boolean;
}

/** Runs listed at most: the latest, which is what an operator looks for. */
const LIMIT = 50;
/** How long to wait for a DuckDB file a worker holds: it holds it as long as it runs, so briefly. */
const LOCK_WAIT_MS = 300;

/** A run as `archiver runs --json` prints it: snake_case, as the `_archiver_runs` columns. */
export function runJson(run: RunRecord) {
  return {
    run_id: run.id,
    table: run.table,
    mode: run.mode,
    policy: run.policy ?? null,
    dry_run: run.dryRun ?? false,
    dataset: run.project ? `${run.project}.${run.dataset}` : run.dataset,
    started_at: run.startedAt,
    ended_at: run.endedAt,
    result: run.result,
    queued: run.queued,
    copied: run.copied,
    cleaned: run.cleaned,
    refused: run.refused,
    deferred: run.deferred,
    failed: run.failed,
    rows: run.rows,
    waited_ms_by_reason: run.waitedMsByReason,
  };
}

/**
 * `2026-11-28 15:20:01Z orders cleanup partial: 2 days cleaned, 1 refused, 1,234 rows, 62 s (policy orders)`:
 * one line per run, in UTC as recorded.
 */
export function runLine(run: RunRecord): string {
  const done =
    run.mode === "migration"
      ? `${count(run.copied, "day")} copied`
      : `${count(run.cleaned, "day")} ${run.dryRun ? "verified" : "cleaned"}`;
  const more = (["refused", "deferred", "failed"] as const).flatMap((k) =>
    run[k] ? [`${number(run[k])} ${k}`] : [],
  );
  const seconds = Math.max(0, Math.round((Date.parse(run.endedAt) - Date.parse(run.startedAt)) / 1000));
  const when = `${run.startedAt.slice(0, 19).replace("T", " ")}Z`;
  const tail = [run.dryRun ? "dry run" : "", run.policy ? `policy ${run.policy}` : ""].filter(Boolean);
  return (
    `${when} ${run.table} ${run.mode} ${run.result}: ${[done, ...more, count(run.rows, "row")].join(", ")}, ` +
    `${number(seconds)} s${tail.length ? ` (${tail.join(", ")})` : ""}`
  );
}

async function openRunStore(config: Config): Promise<RunRecordStore & { close(): Promise<void> }> {
  if (config.warehouse.kind === "bigquery") {
    return (await import("@table-archiver/core/bigquery")).createBigQueryWarehouse(config.warehouse);
  }
  const { createDuckDbWarehouse } = await import("@table-archiver/core/duckdb");
  return createDuckDbWarehouse({ ...config.warehouse, lockWaitMs: LOCK_WAIT_MS });
}

/**
 * `archiver runs [--table T] [--dataset D] [--json]`: the latest finished
 * runs the warehouse's run history holds (`_archiver_runs`), newest first.
 * A cleanup's row is in the default dataset, a migration's in its
 * destination's; `--dataset` reads another. A DuckDB file that does not
 * exist holds no run, and is not created.
 */
export async function runsCommand(config: Config, options: RunsOptions, io: CliIo): Promise<number> {
  const dataset = options.dataset ?? config.warehouse.dataset;
  const { warehouse } = config;
  let runs: RunRecord[] = [];
  if (warehouse.kind !== "duckdb" || warehouse.path === ":memory:" || existsSync(warehouse.path)) {
    const store = await openRunStore(config);
    try {
      runs = await store.runs(
        { dataset },
        { limit: LIMIT, ...(options.table === undefined ? {} : { table: options.table }) },
      );
    } finally {
      await store.close();
    }
  }
  if (options.json) {
    writeLine(io.stdout, JSON.stringify(runs.map(runJson), null, 2));
    return EXIT.ok;
  }
  if (runs.length === 0) {
    const of = options.table === undefined ? "" : ` of ${options.table}`;
    writeLine(io.stdout, `no run${of} recorded in dataset ${dataset}`);
    return EXIT.ok;
  }
  for (const run of runs) writeLine(io.stdout, runLine(run));
  return EXIT.ok;
}
