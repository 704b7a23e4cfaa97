import {
  cleanDay,
  copyDay,
  parseMessage,
  rebuildMigratedDays,
  recopyDay,
  startCleanup,
  startMigration,
} from "@table-archiver/core";
import type { TaskQueue, Warehouse } from "@table-archiver/core/ports";
import { afterEach, describe, expect, test } from "vitest";
// core's testing entry leaves the in-memory fixture out (it is the domain tests' own); it needs no service.
import {
  cleanTask,
  copyTask,
  createMemoryFixture,
  type MemoryFixture,
} from "../../../packages/core/src/testing/memory-fixture";
import { FUNCTION_CALLS, type FunctionKey, PORT_CALL_ROLES, type PortCall } from "./function-access";

const DAYS = ["2024-01-01", "2024-01-02", "2024-01-03"] as const;
let fixtures: MemoryFixture[] = [];
afterEach(async () => {
  await Promise.all(fixtures.map((f) => f.close()));
  fixtures = [];
});

/** Wraps a port so every property it is asked for is recorded as `Port.key`. */
function recorded<T extends object>(port: "Warehouse" | "TaskQueue", target: T, calls: Set<string>): T {
  return new Proxy(target, {
    get(object, key, receiver) {
      const value = Reflect.get(object, key, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.add(`${port}.${String(key)}`);
        return value.apply(object, args);
      };
    },
  });
}

/** A fixture whose `orders` days 1-3 exist and are copied (outside the trace), and the ports to trace. */
async function arrange(calls: Set<string>) {
  const fx = await createMemoryFixture();
  fixtures.push(fx);
  await fx.orders([...DAYS], 4);
  const warehouse = recorded<Warehouse>("Warehouse", fx.warehouse, calls);
  const queue = recorded<TaskQueue>("TaskQueue", fx.queue, calls);
  const copyDeps = fx.copyDeps({ warehouse: async () => warehouse });
  const cleanupDeps = fx.cleanupDeps({
    warehouse: async () => warehouse,
    queue,
    recopy: (task) => recopyDay(copyDeps, task),
    // Days of several chunks: only their cleanup is kept in the durable record (recordDay).
    settings: { chunkRows: 2 },
  });
  return { fx, warehouse, queue, copyDeps, cleanupDeps };
}

const cleanup = (dryRun: boolean) => {
  const parsed = parseMessage({ clean_table: "orders", filter_column: "created_at", dry_run: dryRun });
  if (parsed.mode !== "cleanup") throw new Error("expected a cleanup message");
  return parsed.message;
};

/** Each function's code paths (what its package calls in core), run against traced ports. */
const PATHS: Record<FunctionKey, (calls: Set<string>) => Promise<void>> = {
  async entry(calls) {
    // A migration that plans one day not yet copied (the arranged days are), on a fixture of its own:
    // a cleanup would rightly refuse while that day's copy task is queued.
    const planning = await arrange(calls);
    planning.fx.source.insertRows("orders", [["900", "2023-12-31 10:00:00.000000", "older", null, null]]);
    const migration = parseMessage({
      years_to_migrate: 1,
      months_to_migrate: 0,
      source_tables: ["orders"],
      destination_tables: ["orders"],
      filter_columns: ["created_at"],
    });
    if (migration.mode !== "migration") throw new Error("expected a migration message");
    await startMigration(planning.fx.migrationDeps({ queue: planning.queue }), migration.message);
    const { cleanupDeps } = await arrange(calls);
    await startCleanup(cleanupDeps, cleanup(true));
    await startCleanup(cleanupDeps, cleanup(false));
  },
  async taskHandler(calls) {
    const { fx, copyDeps, cleanupDeps, queue } = await arrange(calls);
    // A copy, a copy whose record Redis lost, a clean, and a clean that re-copies a changed day.
    await copyDay(copyDeps, copyTask("orders", DAYS[0]));
    fx.ledger.forget("orders", DAYS[1]);
    await copyDay(copyDeps, copyTask("orders", DAYS[1]));
    await cleanDay(cleanupDeps, cleanTask("orders", DAYS[0]));
    fx.source.updateRows(
      "orders",
      (row) => String(row[1]).startsWith(DAYS[2]),
      (row) => [row[0], row[1], "changed", row[3], row[4]],
    );
    await cleanDay(cleanupDeps, { ...cleanTask("orders", DAYS[2]), recopyChangedDays: true });
    await queue.settle(cleanTask("orders", DAYS[2]));
  },
  async reader(calls) {
    const { fx, warehouse } = await arrange(calls);
    fx.ledger.clear();
    const deps = { warehouse: async () => warehouse, ledger: fx.ledger, logger: fx.copyDeps().logger };
    await rebuildMigratedDays(
      { ...deps, destinations: { defaultDataset: "archive", allowProject: true } },
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
