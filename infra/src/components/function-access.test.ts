import {
  cleanDay,
  cleanPartitionTask,
  copyDay,
  parseMessage,
  rebuildMigratedDays,
  startCleanup,
  startMigration,
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

/** Each function's code paths: what its package calls in core, run against traced ports. */
const PATHS: Record<FunctionKey, (calls: Set<string>) => Promise<void>> = {
  async entry(calls) {
    // A migration that plans a day not yet copied, on a domain of its own: a cleanup would
    // rightly refuse while that day's copy task is queued.
    const planning = await traced(calls);
    planning.source.insertRows("orders", [["900", "2023-12-31 10:00:00.000000", "older"]]);
    await startMigration(
      planning.migrationDeps,
      message({
        years_to_migrate: 1,
        months_to_migrate: 0,
        source_tables: ["orders"],
        destination_tables: ["orders"],
        filter_columns: ["created_at"],
      }) as Parameters<typeof startMigration>[1],
    );
    const { cleanupDeps } = await traced(calls);
    const cleanup = (dryRun: boolean) =>
      message({ clean_table: "orders", filter_column: "created_at", dry_run: dryRun }) as Parameters<
        typeof startCleanup
      >[1];
    await startCleanup(cleanupDeps, cleanup(true));
    await startCleanup(cleanupDeps, cleanup(false));
    // The dry run of a partitioned table checks each partition it could empty at once.
    await startCleanup((await traced(calls, { partitioned: true })).cleanupDeps, cleanup(true));
  },
  async taskHandler(calls) {
    const { source, ledger, queue, copyDeps, cleanupDeps } = await traced(calls);
    // A copy, a copy whose record Redis lost, a clean, and a clean that re-copies a changed day.
    await copyDay(copyDeps, copyTask(DAYS[0]));
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
