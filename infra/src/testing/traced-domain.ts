import { copyDay } from "@table-archiver/core";
import { loadConfig } from "@table-archiver/core/config";
import { createDuckDbWarehouse } from "@table-archiver/core/duckdb";
import { silentLogger } from "@table-archiver/core/logging";
import type { TaskQueue, Warehouse } from "@table-archiver/core/ports";
import { assembleDeps } from "@table-archiver/core/runtime";
import {
  createMemoryAccountCheck,
  createMemoryCleanupState,
  createMemoryDayDeleter,
  createMemoryLedger,
  createMemoryLoadProbe,
  createMemoryRunHistory,
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
  // The domain's parts as the runtime puts them together (assembleDeps), over these adapters.
  const assemble = (warehouse: Warehouse, queue: TaskQueue, partitions = createUnpartitionedTable()) =>
    assembleDeps(
      {
        source,
        account: createMemoryAccountCheck(),
        deleter,
        partitions,
        loadProbe: createMemoryLoadProbe(),
        storeLedger: ledger,
        storeCleanupState: createMemoryCleanupState(),
        queue,
        warehouse: async () => warehouse,
        logger: silentLogger,
        clock: () => now,
        runHistory: createMemoryRunHistory(),
      },
      {
        timeZone: "UTC",
        destinations: { defaultDataset: "archive", allowProject: false },
        copyBatchRows: 100,
        // Days of several chunks: only their cleanup is kept in the durable record (recordDay).
        cleanup: { ...loadConfig({}).cleanup, chunkRows: 2 },
        warehouseLabel: "the traced in-memory DuckDB",
        sleep: async () => {},
      },
    );

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
  for (const day of DAYS) await copyDay(assemble(raw, memoryQueue).copy, copyTask(day));

  const warehouse = traced<Warehouse>("Warehouse", raw, calls);
  const queue = traced<TaskQueue>("TaskQueue", memoryQueue, calls);
  const deps = assemble(
    warehouse,
    queue,
    // Partitioned: `orders` is a partition of 2024 that a cleanup empties at once (createOnePartitionTable).
    options.partitioned
      ? createOnePartitionTable(source, {
          table: "orders",
          column: "created_at",
          below: "2025-01-01 00:00:00",
        })
      : undefined,
  );
  return {
    source,
    ledger,
    queue,
    warehouse,
    copyDeps: deps.copy,
    cleanupDeps: deps.cleanup,
    migrationDeps: deps.migration,
    runDeps: deps.runs,
    close: () => raw.close(),
  };
}

export const copyTask = (day: string) =>
  ({ kind: "copy", table: "orders", destination: "orders", filterColumn: "created_at", day }) as const;
export const cleanTask = (day: string) =>
  ({ kind: "clean", table: "orders", filterColumn: "created_at", day }) as const;
