import { RefusalError } from "../../errors";
import type { RunRecord } from "../../model/run";

/** The run history table, one per dataset, beside `_archiver_days`. */
export const RUN_TABLE = "_archiver_runs";

/** Runs `runs` answers when asked for no particular number. */
export const DEFAULT_RUN_LIMIT = 50;

/** The day counts every row has as a column of its own, so a query can sum them without reading `record`. */
export const RUN_COUNT_COLUMNS = [
  "queued",
  "copied",
  "cleaned",
  "refused",
  "deferred",
  "failed",
  "rows",
] as const;

/**
 * A run as a row: the columns an analyst filters and sums on, and the whole
 * record as JSON text, which is what the adapters read back (so a field added
 * to RunRecord needs no new column).
 */
export interface RunRow {
  readonly run_id: string;
  readonly source_table: string;
  readonly mode: string;
  /** "" when the run was published by hand (the column holds NULL). */
  readonly policy: string;
  readonly result: string;
  readonly started_at: string;
  readonly ended_at: string;
  readonly counts: Readonly<Record<(typeof RUN_COUNT_COLUMNS)[number], number>>;
  readonly record: string;
}

export function toRunRow(run: RunRecord): RunRow {
  return {
    run_id: run.id,
    source_table: run.table,
    mode: run.mode,
    policy: run.policy ?? "",
    result: run.result,
    started_at: run.startedAt,
    ended_at: run.endedAt,
    counts: Object.fromEntries(RUN_COUNT_COLUMNS.map((name) => [name, run[name]])) as RunRow["counts"],
    record: JSON.stringify(run),
  };
}

/** The records of `rows` (their `record` text), newest start first whatever order they came in. */
export function runsOf(rows: readonly string[], label: string): RunRecord[] {
  const runs = rows.map((text) => {
    try {
      return JSON.parse(text) as RunRecord;
    } catch (error) {
      throw new RefusalError(`${label}: a row of ${RUN_TABLE} is not JSON: ${text.slice(0, 80)}`, {
        cause: error,
      });
    }
  });
  return runs.sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0));
}
