import {
  type CleanupDeps,
  type CopyDayDeps,
  copyDay,
  recopyDay,
  type StartMigrationDeps,
  withDurableCleanup,
  withDurableRecord,
} from "@table-archiver/core";
import { loadConfig } from "@table-archiver/core/config";
import { createDuckDbWarehouse } from "@table-archiver/core/duckdb";
import { silentLogger } from "@table-archiver/core/logging";
import type { TaskQueue, Warehouse } from "@table-archiver/core/ports";
import {
  createMemoryAccountCheck,
  createMemoryCleanupState,
  createMemoryDayDeleter,
  createMemoryLedger,
  createMemoryLoadProbe,
  createMemorySource,
  createMemoryTaskQueue,
  createOnePartitionTable,
  createUnpartitionedTable,
  sourceColumn,
} from "@table-archiver/core/testing";

/** The days of `orders` every traced domain starts with, each copied. */
export const DAYS = ["2024-01-01", "2024-01-02", "2024-01-03"] as const;
const ROWS_PER_DAY = 4;

/** Wraps a port so every method it is asked for is recorded as `Port.method` when called. */
function traced<T extends object>(port: "Warehouse" | "TaskQueue", target: T, calls: Set<string>): T {
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

/**
 * The domain's use cases on in-memory fakes and an in-memory DuckDB warehouse,
 * as the functions wire them (packages/core/src/runtime), with the warehouse
 * and the queue traced: every call a use case makes on them lands in `calls`.
 * Table `orders` holds DAYS, already copied (before tracing starts);
 * `partitioned`, it is one partition that a cleanup empties at once.
 */
export async function createTracedDomain(
  calls: Set<string>,
  options: { readonly partitioned?: boolean } = {},
) {
  const source = createMemorySource();
  const ledger = createMemoryLedger();
  const memoryQueue = createMemoryTaskQueue();
  const deleter = createMemoryDayDeleter(source);
  const raw = await createDuckDbWarehouse({ path: ":memory:", dataset: "archive" });
  const now = new Date("2026-06-01T12:00:00Z");
  const common = {
    source,
    ledger,
    logger: silentLogger,
    clock: () => now,
    timeZone: "UTC",
    destinations: { defaultDataset: "archive", allowProject: false },
  };
  // Copy and cleanup read the ledger as the runtime wires it, recovering what Redis lost from the durable record.
  const durable = (warehouse: Warehouse) =>
    withDurableRecord(ledger, { ...common, warehouse: async () => warehouse });
  const copyDeps = (warehouse: Warehouse): CopyDayDeps => ({
    ...common,
    ledger: durable(warehouse),
    warehouse: async () => warehouse,
    batchRows: 100,
  });

  source.createTable(
    {
      name: "orders",
      columns: [
        sourceColumn("id", "bigint(20) unsigned", false),
        sourceColumn("created_at", "datetime(6)"),
        sourceColumn("note", "varchar(20)"),
      ],
      primaryKey: ["id"],
      indexLeadingColumns: ["id", "created_at"],
    },
    DAYS.flatMap((day, d) =>
      Array.from({ length: ROWS_PER_DAY }, (_, i) => [
        String(d * ROWS_PER_DAY + i + 1),
        `${day} 0${i}:00:00.000000`,
        `row ${i}`,
      ]),
    ),
  );
  for (const day of DAYS) await copyDay(copyDeps(raw), copyTask(day));

  const warehouse = traced<Warehouse>("Warehouse", raw, calls);
  const queue = traced<TaskQueue>("TaskQueue", memoryQueue, calls);
  const cleanupDeps: CleanupDeps = {
    ...common,
    ledger: durable(warehouse),
    deleter,
    // Partitioned: `orders` is a partition of 2024 that a cleanup empties at once (createOnePartitionTable).
    partitions: options.partitioned
      ? createOnePartitionTable(source, {
          table: "orders",
          column: "created_at",
          below: "2025-01-01 00:00:00",
        })
      : createUnpartitionedTable(),
    account: createMemoryAccountCheck(),
    // As the runtime wires it: a started cleanup's plan is kept in the durable record too.
    state: withDurableCleanup(createMemoryCleanupState(), { ...common, warehouse: async () => warehouse }),
    queue,
    loadProbe: createMemoryLoadProbe(),
    warehouse: async () => warehouse,
    warehouseLabel: "the traced in-memory DuckDB",
    recopy: (task) => recopyDay(copyDeps(warehouse), task),
    sleep: async () => {},
    // Days of several chunks: only their cleanup is kept in the durable record (recordDay).
    settings: { ...loadConfig({}).cleanup, chunkRows: 2 },
  };
  const migrationDeps: StartMigrationDeps = { ...common, queue };
  return {
    source,
    ledger,
    queue,
    warehouse,
    copyDeps: copyDeps(warehouse),
    cleanupDeps,
    migrationDeps,
    close: () => raw.close(),
  };
}

export const copyTask = (day: string) =>
  ({ kind: "copy", table: "orders", destination: "orders", filterColumn: "created_at", day }) as const;
export const cleanTask = (day: string) =>
  ({ kind: "clean", table: "orders", filterColumn: "created_at", day }) as const;
