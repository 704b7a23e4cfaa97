import { createDuckDbWarehouse, type DuckDbWarehouse } from "../adapters/duckdb/duckdb-warehouse";
import { createJsonLogger } from "../adapters/logging/json-logger";
import { loadConfig } from "../config/load-config";
import type { CleanupDeps } from "../domain/cleanup/cleanup-deps";
import type { CleanupSettings } from "../domain/cleanup/cleanup-settings";
import { type CopyDayDeps, copyDay } from "../domain/copy/copy-day";
import type { StartMigrationDeps } from "../domain/migration/start-migration";
import type { RunDeps } from "../domain/runs/run-deps";
import type { CalendarDay } from "../model/calendar-day";
import type { CopiedDayRecord } from "../model/copied-day-record";
import type { Row, TableSchema } from "../model/table-schema";
import type { CleanDayTask, CopyDayTask } from "../model/task";
import { type Adapters, assembleDeps, type DomainSettings } from "../runtime/assemble-deps";
import { createMemoryAccountCheck, type MemoryAccountCheck } from "./fakes/memory-account-check";
import { createMemoryCleanupState, type MemoryCleanupState } from "./fakes/memory-cleanup-state";
import { createMemoryDayDeleter, type MemoryDayDeleter } from "./fakes/memory-day-deleter";
import { createMemoryLedger, type MemoryLedger } from "./fakes/memory-ledger";
import { createMemoryLoadProbe, type MemoryLoadProbe } from "./fakes/memory-load-probe";
import { createMemoryRunHistory } from "./fakes/memory-run-history";
import { createMemorySource, type MemorySource } from "./fakes/memory-source";
import { createMemoryTaskQueue, type MemoryTaskQueue } from "./fakes/memory-task-queue";
import { sourceColumn } from "./fakes/source-column";
import { createUnpartitionedTable } from "./fakes/unpartitioned-table";
import type { LogLine } from "./test-runtime";

/** "Today" for the fast domain tests: every test day is in the past. */
const MEMORY_NOW = "2026-06-01T12:00:00Z";

/** Cleanup deps to replace; `settings` are merged into the defaults. */
export type CleanupOverrides = Partial<Omit<CleanupDeps, "settings">> & {
  readonly settings?: Partial<CleanupSettings>;
};

/**
 * The domain's use cases wired to in-memory fakes (source, deleter, ledger,
 * cleanup state, queue, load probe) and
 * an in-memory DuckDB warehouse, with a fixed clock in UTC and every log line
 * kept: no service needed. One per test; `close()` ends the warehouse.
 */
export interface MemoryFixture {
  readonly source: MemorySource;
  readonly ledger: MemoryLedger;
  readonly queue: MemoryTaskQueue;
  readonly deleter: MemoryDayDeleter;
  readonly state: MemoryCleanupState;
  readonly probe: MemoryLoadProbe;
  /** What the source's account may do; everything unless a test lists what it lacks. */
  readonly account: MemoryAccountCheck;
  readonly warehouse: DuckDbWarehouse;
  readonly logs: LogLine[];
  /** Every wait cleanup asked for (the fixture's sleep returns at once). */
  readonly sleeps: number[];
  /** What copyDay runs with; `overrides` replace single deps. */
  copyDeps(overrides?: Partial<CopyDayDeps>): CopyDayDeps;
  migrationDeps(overrides?: Partial<StartMigrationDeps>): StartMigrationDeps;
  /** What cleanDay and startCleanup run with: the defaults of a deployment without CLEANUP_* variables. */
  cleanupDeps(overrides?: CleanupOverrides): CleanupDeps;
  /** Where runs begin and end: an in-memory run history, this fixture's warehouse. */
  runDeps(overrides?: Partial<RunDeps>): RunDeps;
  /** Copies one day with copyDay, to the destination of the table's name in the default dataset. */
  copy(table: string, day: CalendarDay): Promise<CopiedDayRecord>;
  /**
   * Creates `orders` (eventsSchema) with `perDay` rows on each of `days`
   * (rowsOnDays) and copies the `copied` days (every one by default).
   */
  orders(
    days: readonly CalendarDay[],
    perDay: number,
    options?: { readonly copied?: readonly CalendarDay[]; readonly idStep?: number },
  ): Promise<void>;
  /** Ids of an eventsSchema table's rows, as written; only those of `day` (by created_at) when given. */
  ids(table: string, day?: CalendarDay): string[];
  /** Log lines whose message matches. */
  logged(message: RegExp): LogLine[];
  close(): Promise<void>;
}

export async function createMemoryFixture(options: { readonly now?: string } = {}): Promise<MemoryFixture> {
  const source = createMemorySource();
  const ledger = createMemoryLedger();
  const queue = createMemoryTaskQueue();
  const deleter = createMemoryDayDeleter(source);
  const state = createMemoryCleanupState();
  const probe = createMemoryLoadProbe();
  const account = createMemoryAccountCheck();
  const sleeps: number[] = [];
  // One planned chunk a delete, as in the cleanup fixture: joining has tests of its own.
  const settings: CleanupSettings = loadConfig({ CLEANUP_CHUNK_TARGET_MS: "0" }).cleanup;
  const warehouse = await createDuckDbWarehouse({ path: ":memory:", dataset: "archive" });
  const logs: LogLine[] = [];
  const logger = createJsonLogger({ level: "debug", write: (line) => logs.push(JSON.parse(line)) });
  const now = new Date(options.now ?? MEMORY_NOW);
  const adapters: Adapters = {
    source,
    account,
    deleter,
    partitions: createUnpartitionedTable(),
    loadProbe: probe,
    storeLedger: ledger,
    storeCleanupState: state,
    queue,
    warehouse: async () => warehouse,
    logger,
    clock: () => now,
    runHistory: createMemoryRunHistory(),
  };
  const domain: DomainSettings = {
    timeZone: "UTC",
    destinations: { defaultDataset: "archive", allowProject: false },
    copyBatchRows: 100,
    cleanup: settings,
    warehouseLabel: "the test's in-memory DuckDB",
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  };
  // A replaced ledger, state or warehouse is wired as production wires the real ones (assembleDeps):
  // behind the durable record of whichever warehouse the deps name.
  const assemble = (overrides: Partial<Omit<CleanupDeps, "settings"> & CopyDayDeps>) => {
    const { ledger: storeLedger, state: storeCleanupState, ...rest } = overrides;
    const replaced = Object.fromEntries(Object.entries(rest).filter(([key]) => key in adapters));
    return assembleDeps(
      {
        ...adapters,
        ...replaced,
        ...(storeLedger ? { storeLedger } : {}),
        ...(storeCleanupState ? { storeCleanupState } : {}),
      },
      domain,
    );
  };
  const copyDeps = (overrides: Partial<CopyDayDeps> = {}): CopyDayDeps => ({
    ...assemble(overrides).copy,
    ...withoutAdapters(overrides),
  });
  const withoutAdapters = <T extends object>(overrides: T): Partial<T> =>
    Object.fromEntries(
      Object.entries(overrides).filter(([key]) => !(key in adapters) && key !== "ledger" && key !== "state"),
    ) as Partial<T>;
  return {
    source,
    ledger,
    queue,
    deleter,
    state,
    probe,
    account,
    warehouse,
    logs,
    sleeps,
    copyDeps,
    migrationDeps: (overrides = {}) => ({ ...assemble({}).migration, ...overrides }),
    cleanupDeps: (overrides = {}) => {
      const deps = assemble(overrides).cleanup;
      return { ...deps, ...withoutAdapters(overrides), settings: { ...settings, ...overrides.settings } };
    },
    runDeps: (overrides = {}) => ({ ...assemble({}).runs, ...overrides }),
    copy: (table, day) => copyDay(copyDeps(), copyTask(table, day)),
    async orders(days, perDay, options = {}) {
      source.createTable(eventsSchema("orders"), rowsOnDays(days, perDay, options));
      for (const day of options.copied ?? days) await copyDay(copyDeps(), copyTask("orders", day));
    },
    ids: (table, day) =>
      source
        .rows(table)
        .flatMap((row) => (day === undefined || String(row[1]).startsWith(day) ? [String(row[0])] : [])),
    logged: (message) => logs.filter((line) => message.test(line.message)),
    close: () => warehouse.close(),
  };
}

/** The cleanup task of `day`, filtered by created_at. */
export function cleanTask(table: string, day: CalendarDay): CleanDayTask {
  return { kind: "clean", table, filterColumn: "created_at", day };
}

/** The copy task of `day`, filtered by created_at, into the table of the same name. */
export function copyTask(table: string, day: CalendarDay, destination = table): CopyDayTask {
  return { kind: "copy", table, destination, filterColumn: "created_at", day };
}

/**
 * A source table `name`: `id` BIGINT UNSIGNED primary key, `created_at`
 * DATETIME(6) (indexed unless `indexed` is false), `note` VARCHAR(20),
 * `shipped` DATE and `changed` TIMESTAMP; without `id` as key when `keyed` is false.
 */
export function eventsSchema(
  name: string,
  options: { readonly indexed?: boolean; readonly keyed?: boolean } = {},
): TableSchema {
  return {
    name,
    columns: [
      sourceColumn("id", "bigint(20) unsigned", false),
      sourceColumn("created_at", "datetime(6)"),
      sourceColumn("note", "varchar(20)"),
      sourceColumn("shipped", "date"),
      sourceColumn("changed", "timestamp"),
    ],
    primaryKey: options.keyed === false ? [] : ["id"],
    indexLeadingColumns: options.indexed === false ? ["id"] : ["id", "created_at"],
  };
}

/** A row of eventsSchema: `at` is `YYYY-MM-DD HH:MM:SS` (microseconds are added) or null. */
export function event(id: number | string, at: string | null, note: string | null = `row ${id}`): Row {
  return [String(id), at === null ? null : at.length === 19 ? `${at}.000000` : at, note, null, null];
}

/** One row at each of `times` (`YYYY-MM-DD HH:MM:SS`), ids 1, 2, ... in that order. */
export function eventsAt(times: readonly string[], firstId = 1): Row[] {
  return times.map((time, index) => event(firstId + index, time));
}

/** `perDay` rows of eventsSchema on each of `days`, ids rising with time by `idStep` from `idStep`. */
export function rowsOnDays(
  days: readonly CalendarDay[],
  perDay: number,
  options: { readonly idStep?: number } = {},
): Row[] {
  const step = options.idStep ?? 1;
  return days.flatMap((day, d) =>
    Array.from({ length: perDay }, (_, i) => {
      const time = `${day} ${String(i % 24).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}:00.${String(i).padStart(6, "0")}`;
      return event((d * perDay + i + 1) * step, time);
    }),
  );
}
