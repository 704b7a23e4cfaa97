import {
  cleanDay,
  cleanPartitionTask,
  copyDay,
  parseMessage,
  type RunDeps,
  rebuildMigratedDays,
  recordTaskEnd,
  startCleanupRun,
  startMigrationRuns,
  taskKey,
} from "@table-archiver/core";
import { silentLogger } from "@table-archiver/core/logging";
import { afterEach, describe, expect, test } from "vitest";
import { cleanTask, copyTask, createTracedDomain, DAYS } from "../testing/traced-domain";
import { FUNCTION_CALLS, type FunctionKey, PORT_CALL_ROLES, type PortCall } from "./function-access";

let domains: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(domains.map((d) => d.close()));
  domains = [];
});

async function traced(calls: Set<string>, options: { readonly partitioned?: boolean } = {}) {
  const domain = await createTracedDomain(calls, options);
  domains.push(domain);
  return domain;
}

function message(fields: object) {
  return parseMessage(fields).message;
}

/** Ends the run `task` carries, of which it is the only task: the run's row is written. */
async function lastTaskOfRun(
  runs: RunDeps,
  task: ReturnType<typeof copyTask> & { readonly run: string },
  record: Awaited<ReturnType<typeof copyDay>>,
) {
  const counts = { copied: 0, cleaned: 0, refused: 0, deferred: 0, failed: 0, rows: 0, waitedMsByReason: {} };
  const start = {
    id: task.run,
    table: task.table,
    mode: "migration",
    dataset: "archive",
    startedAt: "x",
  } as const;
  await runs.history.begin(start, [taskKey(task)], counts, "x");
  await recordTaskEnd(runs, task, { kind: "copied", record });
}

/** Each function's code paths: what its package calls in core, run against traced ports. */
const PATHS: Record<FunctionKey, (calls: Set<string>) => Promise<void>> = {
  async entry(calls) {
    // A migration that plans a day not yet copied, on a domain of its own: a cleanup would
    // rightly refuse while that day's copy task is queued.
    const planning = await traced(calls);
    planning.source.insertRows("orders", [["900", "2023-12-31 10:00:00.000000", "older"]]);
    await startMigrationRuns(
      planning.migrationDeps,
      planning.runDeps,
      message({
        years_to_migrate: 1,
        months_to_migrate: 0,
        source_tables: ["orders"],
        destination_tables: ["orders"],
        filter_columns: ["created_at"],
      }) as Parameters<typeof startMigrationRuns>[2],
    );
    const { cleanupDeps, runDeps } = await traced(calls);
    const cleanup = (dryRun: boolean) =>
      message({ clean_table: "orders", filter_column: "created_at", dry_run: dryRun }) as Parameters<
        typeof startCleanupRun
      >[2];
    // The dry run ends its run at once, so its row is written here.
    await startCleanupRun(cleanupDeps, runDeps, cleanup(true));
    await startCleanupRun(cleanupDeps, runDeps, cleanup(false));
    // The dry run of a partitioned table checks each partition it could empty at once.
    const partitioned = await traced(calls, { partitioned: true });
    await startCleanupRun(partitioned.cleanupDeps, partitioned.runDeps, cleanup(true));
  },
  async taskHandler(calls) {
    const { source, ledger, queue, copyDeps, cleanupDeps, runDeps } = await traced(calls);
    // A copy, a copy whose record Redis lost, a clean, and a clean that re-copies a changed day.
    const copied = await copyDay(copyDeps, copyTask(DAYS[0]));
    await lastTaskOfRun(runDeps, { ...copyTask(DAYS[0]), run: "traced" }, copied);
    ledger.forget("orders", DAYS[1]);
    await copyDay(copyDeps, copyTask(DAYS[1]));
    await cleanDay(cleanupDeps, cleanTask(DAYS[0]));
    source.updateRows(
      "orders",
      (row) => String(row[1]).startsWith(DAYS[2]),
      (row) => [row[0], row[1], "changed"],
    );
    await cleanDay(cleanupDeps, { ...cleanTask(DAYS[2]), recopyChangedDays: true });
    await queue.settle(cleanTask(DAYS[2]));
    // A partition emptied at once.
    const partitioned = await traced(calls, { partitioned: true });
    const emptied = await cleanPartitionTask(partitioned.cleanupDeps, {
      ...cleanTask(DAYS[0]),
      partition: "p_old",
    });
    expect(emptied.partition).toMatchObject({ outcome: "cleaned" });
  },
  async reader(calls) {
    const { ledger, warehouse } = await traced(calls);
    ledger.clear();
    await rebuildMigratedDays(
      {
        warehouse: async () => warehouse,
        ledger,
        logger: silentLogger,
        destinations: { defaultDataset: "archive", allowProject: true },
      },
      { dataset: "archive" },
      "orders",
    );
  },
};

describe("FUNCTION_CALLS", () => {
  test.each(Object.keys(PATHS) as FunctionKey[])(
    "lists exactly the port calls the %s's code paths make",
    async (key) => {
      const calls = new Set<string>();
      await PATHS[key](calls);
      expect([...calls].sort()).toEqual([...FUNCTION_CALLS[key]].sort());
    },
  );

  test("every listed call names a port method whose roles are written down", () => {
    for (const calls of Object.values(FUNCTION_CALLS)) {
      for (const call of calls) expect(Object.keys(PORT_CALL_ROLES)).toContain(call satisfies PortCall);
    }
  });
});
