import { afterAll, beforeAll } from "vitest";
import { createMysqlPartitionedTable } from "../adapters/mysql/mysql-partitioned-table";
import type { CleanupDeps } from "../domain/cleanup/cleanup-deps";
import { cleanDay } from "../domain/cleanup/day/clean-day";
import { type CleanupTaskReport, cleanPartitionTask } from "../domain/cleanup/partition/clean-partition-task";
import { startCleanup } from "../domain/cleanup/start-cleanup";
import type { CalendarDay } from "../model/calendar-day";
import { type CleanDayTask, type CleanPartitionTask, isPartitionTask } from "../model/task";
import type { PartitionedTable } from "../ports/partitioned-table";
import { DOCUMENTED_GRANTS } from "./archiver-account";
import { type CleanupFixture, createCleanupFixture } from "./cleanup-fixture";
import { createMemoryTaskQueue, type MemoryTaskQueue } from "./fakes/memory-task-queue";
import { uniqueName } from "./test-services";

// Partitioned tables for the partition cleanup tests, on a CleanupFixture: made, filled, copied, cleaned.

/** Columns of every test table: a generated column too, which putting rows back must not insert. */
const COLUMNS = `id BIGINT NOT NULL AUTO_INCREMENT, created_at DATETIME(6) NOT NULL, note VARCHAR(40) NULL,
  note_length INT AS (CHAR_LENGTH(note)) STORED,
  PRIMARY KEY (id, created_at), KEY (created_at)`;

/** Monthly `RANGE (TO_DAYS(created_at))` partitions for January and February 2024, and MAXVALUE. */
export const MONTHLY = `PARTITION BY RANGE (TO_DAYS(created_at)) (
  PARTITION p2024_01 VALUES LESS THAN (TO_DAYS('2024-02-01')),
  PARTITION p2024_02 VALUES LESS THAN (TO_DAYS('2024-03-01')),
  PARTITION pmax VALUES LESS THAN MAXVALUE)`;

/** Daily `RANGE COLUMNS(created_at)` partitions for 2024-01-10..12, and MAXVALUE. */
export const DAILY = `PARTITION BY RANGE COLUMNS (created_at) (
  PARTITION d0110 VALUES LESS THAN ('2024-01-11'),
  PARTITION d0111 VALUES LESS THAN ('2024-01-12'),
  PARTITION d0112 VALUES LESS THAN ('2024-01-13'),
  PARTITION dmax VALUES LESS THAN (MAXVALUE))`;

/** Monthly `RANGE COLUMNS(created_at)` partitions for January 2024 and later. */
export const MONTHLY_COLUMNS = `PARTITION BY RANGE COLUMNS (created_at) (
  PARTITION m2024_01 VALUES LESS THAN ('2024-02-01 00:00:00'),
  PARTITION mmax VALUES LESS THAN (MAXVALUE))`;

export const JANUARY = ["2024-01-10", "2024-01-11", "2024-01-12"] as const;

/** The cleanup message of a test table, by created_at. */
export const cleanupMessage = (name: string, dryRun: boolean) =>
  ({
    clean_table: name,
    filter_column: "created_at",
    dry_run: dryRun,
    recopy_changed_days: false,
    allow_delete_triggers: false,
    exchange_partitions: true,
  }) as const;

/** What a cleanup's tasks did, each run once. */
export interface CleanupRun {
  readonly reports: CleanupTaskReport[];
  readonly failures: { task: CleanDayTask; error: Error }[];
}

/** The helpers of partitionedTables, bound to one fixture. */
export type PartitionedTables = ReturnType<typeof partitionedTables>;

/**
 * A cleanup fixture on real MariaDB, Redis and DuckDB whose account holds the
 * documented grants, cleanup's and what emptying a partition takes, with the
 * partition helpers bound to it (each table's days copied by the real copy task).
 */
export async function openPartitionTests(): Promise<{ fx: CleanupFixture; pt: PartitionedTables }> {
  const fx = await createCleanupFixture();
  await fx.account.change(DOCUMENTED_GRANTS.partitions(fx.db.name));
  return { fx, pt: partitionedTables(fx) };
}

/**
 * Registers the test file's hooks: opens the partition tests' fixture before
 * its tests (openPartitionTests), hands it to `use`, and closes it after them.
 */
export function usePartitionTests(
  use: (opened: { fx: CleanupFixture; pt: PartitionedTables }) => void,
): void {
  let fx: CleanupFixture | undefined;
  beforeAll(async () => {
    const opened = await openPartitionTests();
    fx = opened.fx;
    use(opened);
  });
  afterAll(async () => {
    await fx?.close();
  });
}

/** The helpers, bound to one fixture. */
export function partitionedTables(fx: CleanupFixture) {
  return {
    /** A table partitioned as `partitioning`, four rows on each day; `copied` days copied by the real copy task. */
    async table(partitioning: string, days: readonly CalendarDay[], copied: readonly CalendarDay[]) {
      const name = uniqueName("events");
      await fx.query(`CREATE TABLE \`${name}\` (${COLUMNS}) ${partitioning}`);
      for (const day of days) {
        for (let hour = 1; hour <= 4; hour++) {
          await fx.query(`INSERT INTO \`${name}\` (created_at, note) VALUES (?, ?)`, [
            `${day} 0${hour}:00:00`,
            `${day} #${hour}`,
          ]);
        }
      }
      for (const day of copied) await fx.copy(name, day);
      return name;
    },

    /** Rows left, by day. */
    async rowsByDay(name: string): Promise<Record<string, number>> {
      const rows = await fx.query<{ d: string; n: number }>(
        `SELECT DATE_FORMAT(created_at, '%Y-%m-%d') AS d, COUNT(*) AS n FROM \`${name}\` GROUP BY d ORDER BY d`,
      );
      return Object.fromEntries(rows.map((row) => [row.d, Number(row.n)]));
    },

    /** Queues the table's cleanup and runs every task it queues (the ones tasks queue too), each once. */
    async clean(name: string, deps: (queue: MemoryTaskQueue) => CleanupDeps = (queue) => fx.deps({ queue })) {
      const queue = createMemoryTaskQueue();
      const summary = await startCleanup(deps(queue), cleanupMessage(name, false));
      const run: CleanupRun = { reports: [], failures: [] };
      for (let task = queue.take(); task; task = queue.take()) {
        if (task.kind !== "clean") throw new Error("only cleanup tasks are expected");
        try {
          run.reports.push(
            await (isPartitionTask(task)
              ? cleanPartitionTask(deps(queue), task)
              : cleanDay(deps(queue), task)),
          );
        } catch (error) {
          run.failures.push({ task, error: error as Error });
        }
        queue.finish(task);
      }
      return { summary, ...run };
    },

    /** Queues the table's cleanup and takes its first task, the partition's. */
    async partitionTask(name: string): Promise<{ queue: MemoryTaskQueue; task: CleanPartitionTask }> {
      const queue = createMemoryTaskQueue();
      await startCleanup(fx.deps({ queue }), cleanupMessage(name, false));
      const task = queue.take();
      if (task?.kind !== "clean" || !isPartitionTask(task)) throw new Error("expected the partition's task");
      return { queue, task };
    },

    /** The archiver's partition adapter with `detach` wrapped. */
    detachingWith(
      then: (detach: () => Promise<void>) => Promise<void>,
      partitions: PartitionedTable = createMysqlPartitionedTable(fx.pool),
    ): PartitionedTable {
      return { ...partitions, detach: (table, partition) => then(() => partitions.detach(table, partition)) };
    },

    /** Twins in the database now. */
    twins: () => createMysqlPartitionedTable(fx.pool).detachedTwins(),

    /** The fixture's pool, with the text of every statement it is asked to run added to `statements`. */
    spyingPool(statements: string[]): typeof fx.pool {
      return new Proxy(fx.pool, {
        get(target, property) {
          const value = Reflect.get(target, property);
          if (property !== "query") return typeof value === "function" ? value.bind(target) : value;
          return (options: { sql: string }, values: unknown[]) => {
            statements.push(options.sql);
            return target.query(options, values);
          };
        },
      });
    },
  };
}
