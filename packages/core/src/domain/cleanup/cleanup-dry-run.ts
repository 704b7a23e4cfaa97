import pMap from "p-map";
import type { CalendarDay } from "../../model/calendar-day";
import type { CopiedDayRecord } from "../../model/copied-day-record";
import type { DayFigures } from "../../model/day-figures";
import { integerKeyColumn, type TableSchema } from "../../model/table-schema";
import type { ReferencingKey } from "../../ports/day-deleter";
import type { CleanupDeps } from "./cleanup-deps";
import { chunkByOf, recordedKeyRange } from "./day/plan-chunks";
import { verifyDay } from "./day/verify-day";
import type { PartitionPath } from "./partition/partition-paths";
import { exchangeCheck, verifyRows } from "./partition/partition-rows";
import type { DayRefusal } from "./refusal";

/** A day of the cleanup, with its copy record when the ledger has one. */
export interface PendingDay {
  readonly day: CalendarDay;
  readonly record: CopiedDayRecord | undefined;
}

/** Days verified at once in a dry run (each is a few warehouse and source queries). */
const VERIFY_CONCURRENCY = 8;

/** The table a dry run verifies, and the foreign keys that reference it. */
export interface DryRunTable {
  readonly schema: TableSchema;
  readonly column: string;
  readonly referencingKeys: readonly ReferencingKey[];
}

/**
 * Verifies every day (a day part-deleted by an earlier run is counted as
 * resuming instead) and logs, per day, the rows and the statement that would
 * delete them, or why the day is refused. Changes nothing.
 */
export async function dryRunCleanup(
  deps: CleanupDeps,
  { schema, column, referencingKeys }: DryRunTable,
  days: readonly PendingDay[],
) {
  const totals = { verified: 0, refused: 0, resuming: 0, rowsToDelete: 0, refusals: [] as DayRefusal[] };
  const results = await pMap(
    days,
    async ({ day, record }) => {
      const state = await deps.state.read({ table: schema.name, day });
      if (state?.status === "deleting") return { day, state };
      const target = { scope: { table: schema.name, column, day }, schema, by: chunkByOf(schema) };
      return { day, verdict: await verifyDay(deps, { target, referencingKeys, record: record ?? null }) };
    },
    { concurrency: VERIFY_CONCURRENCY },
  );
  for (const { day, state, verdict } of results) {
    const scope = { table: schema.name, column, day };
    const statement = (figures: DayFigures) =>
      deps.deleter.describeDelete(scope, recordedKeyRange(schema, figures));
    if (state) {
      const left = state.plan.kind === "chunks" ? state.plan.chunks.slice(state.chunksDone) : [];
      const rows = left.reduce((sum, chunk) => sum + chunk.rows, 0);
      totals.resuming += 1;
      totals.rowsToDelete += rows;
      deps.logger.info("cleanup dry run: day would resume deleting", {
        ...scope,
        rowsToDelete: rows,
        rowsDeleted: state.rowsDeleted,
        statement: statement(state.figures),
      });
    } else if (verdict?.kind === "refused") {
      totals.refused += 1;
      const { refusal, reason, source, warehouse, recorded } = verdict;
      totals.refusals.push({ day, refusal, reason });
      const fields = { ...scope, refusal, reason, source, warehouse, recorded };
      deps.logger.warn("cleanup dry run: day refused; its rows would be kept", fields);
    } else if (verdict) {
      const rows = verdict.kind === "ready" ? verdict.figures.rows : 0;
      totals.verified += 1;
      totals.rowsToDelete += rows;
      deps.logger.info("cleanup dry run: day verified", {
        ...scope,
        rowsToDelete: rows,
        chunks: Math.ceil(rows / deps.settings.chunkRows),
        verification: integerKeyColumn(schema)
          ? "rows, content fingerprint, and key count, sum, min, max"
          : "rows and content fingerprint",
        ...(rows > 0
          ? { statement: statement(verdict.figures) }
          : { note: "no source rows left; the warehouse holds the full copy" }),
      });
    }
  }
  return totals;
}

/**
 * Logs, per partition that holds pending days, the path its days would take
 * and why. A partition that may be emptied at once by its shape takes the
 * chunked path when one of its days is among `refusals` (dryRunCleanup has
 * verified each day, content included); otherwise its rows are counted by
 * day and checked as its task would before the exchange, so the path shown
 * is the one a cleanup would take now, and no row is hashed a second time.
 */
export async function dryRunPartitions(
  deps: CleanupDeps,
  schema: TableSchema,
  column: string,
  paths: readonly PartitionPath[],
  pending: readonly PendingDay[],
  refusals: readonly DayRefusal[],
): Promise<PartitionPath[]> {
  const records = new Map(pending.flatMap(({ day, record }) => (record ? [[day, record] as const] : [])));
  const checked: PartitionPath[] = [];
  for (const path of paths) {
    const refused = refusals.find(({ day }) => path.days.includes(day));
    const read = { schema, column, rows: { partition: path.partition } };
    const check =
      path.path !== "exchange"
        ? undefined
        : refused
          ? { chunked: `${refused.day} is refused: ${refused.reason}` }
          : exchangeCheck(await verifyRows(deps, read, path.days, records, "counts"));
    const final =
      check && "chunked" in check ? { ...path, path: "chunked" as const, reason: check.chunked } : path;
    checked.push(final);
    deps.logger.info("cleanup dry run: partition", {
      table: schema.name,
      partition: final.partition,
      path: final.path,
      days: final.days.length,
      ...(check && "rows" in check
        ? {
            rowsToDetach: check.rows,
            statement: deps.partitions.describeDetach(schema.name, final.partition),
          }
        : {}),
      ...(final.reason ? { reason: final.reason } : {}),
    });
  }
  return checked;
}
