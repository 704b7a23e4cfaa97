import { describe, expect, it } from "vitest";
import { createMysqlPartitionedTable } from "../../../adapters/mysql/mysql-partitioned-table";
import { addFigures, type DayFigures } from "../../../model/day-figures";
import type { TableSchema } from "../../../model/table-schema";
import type { PartitionedTable, PartitionRows } from "../../../ports/partitioned-table";
import type { CleanupFixture } from "../../../testing/cleanup-fixture";
import type { MemoryTaskQueue } from "../../../testing/fakes/memory-task-queue";
import {
  JANUARY,
  MONTHLY,
  type PartitionedTables,
  usePartitionTests,
} from "../../../testing/partitioned-tables";
import { uniqueName } from "../../../testing/test-services";
import { cleanPartitionTask } from "./clean-partition-task";

// A detached twin verified in short slices along its primary key (CLEANUP_PARTITION_SLICE_ROWS), on real
// MariaDB, Redis and DuckDB as the archiver's least-privilege account (see openPartitionTests).

let fx: CleanupFixture;
let pt: PartitionedTables;

usePartitionTests((opened) => {
  ({ fx, pt } = opened);
});

describe("slices of a partition's rows along the primary key", () => {
  it("hold every row exactly once, at most `limit` each: gaps in the keys, a key shared by two rows, huge keys", async () => {
    const name = uniqueName("sliced");
    await fx.query(
      `CREATE TABLE \`${name}\` (id BIGINT UNSIGNED NOT NULL, created_at DATETIME(6) NOT NULL, note VARCHAR(80) NULL,
         PRIMARY KEY (id, created_at), KEY (created_at)) ${MONTHLY}`,
    );
    // Ids with gaps, beyond 2^53, and ids 7 and 2^63 each on two rows (two days): slice boundaries fall between them.
    const rows: [string, string][] = [
      ["1", "2024-01-10 01:00:00"],
      ["2", "2024-01-10 02:00:00"],
      ["7", "2024-01-10 03:00:00.5"],
      ["7", "2024-01-11 03:00:00"],
      ["1000", "2024-01-11 04:00:00"],
      ["9007199254740993", "2024-01-12 05:00:00"],
      ["9223372036854775808", "2024-01-12 06:00:00"],
      ["9223372036854775808", "2024-01-12 06:00:00.000001"],
      ["18446744073709551615", "2024-01-31 23:59:59.999999"],
    ];
    for (const [id, at] of rows) {
      await fx.query(`INSERT INTO \`${name}\` VALUES (CAST(? AS UNSIGNED), ?, ?)`, [id, at, `${id} ${at}`]);
    }
    const schema = await fx.source.describeTable(name);
    if (!schema) throw new Error("no schema");
    const partitions = createMysqlPartitionedTable(fx.pool);
    const where = { partition: "p2024_01" };
    const whole = await partitions.dayFigures(schema, "created_at", where);

    for (const [limit, chained] of [1, 2, 3, 4, 8, 9, 10, 1000].flatMap((n) => [
      [n, true] as const,
      [n, false] as const,
    ])) {
      const slices = await allSlices(partitions, schema, where, limit, chained);
      // Each slice holds at most `limit` rows, all of them but the last exactly `limit`.
      const sizes = slices.map((slice) => slice.rows);
      expect(sizes.slice(0, -1).every((size) => size === limit)).toBe(true);
      expect(sizes.at(-1)).toBeLessThanOrEqual(limit);
      // One statement a slice, and one more when the rows fill the last slice exactly.
      expect(slices).toHaveLength(Math.floor(rows.length / limit) + 1);
      expect(summed(slices)).toEqual(whole.days);
    }
  });

  it("reads each slice as a range of the primary key, not the whole partition", async () => {
    const name = await pt.table(MONTHLY, [...JANUARY], []);
    const schema = await fx.source.describeTable(name);
    if (!schema) throw new Error("no schema");
    const statements: string[] = [];
    const spied = createMysqlPartitionedTable(pt.spyingPool(statements));
    await spied.sliceFigures(
      schema,
      "created_at",
      { partition: "p2024_01" },
      { after: ["5", "2024-01-11 01:00:00"], limit: 3 },
    );
    // The slice's bound, walked to along the primary key, then its rows hashed while the next slice's bound
    // is walked to: every read a range of the key.
    expect(statements).toHaveLength(2);
    for (const sql of statements) {
      const plan = await fx.query<{ type: string; key: string }>(`EXPLAIN ${sql.replace(/\?/g, "'1'")}`);
      expect(plan.map((row) => [row.type, row.key])).toEqual(plan.map(() => ["range", "PRIMARY"]));
    }
    expect(statements.map((sql) => sql.match(/FORCE INDEX \(PRIMARY\)/g)?.length)).toEqual([1, 2]);
  });
});

describe("a twin verified in slices", () => {
  it("is cleaned after CLEANUP_PARTITION_SLICE_ROWS rows a statement: a slice of one row, thirteen statements for twelve rows", async () => {
    const name = await pt.table(MONTHLY, [...JANUARY], [...JANUARY]);
    const statements: string[] = [];
    const { slices, partitions } = slicesListed(statements);

    const { reports, failures } = await pt.clean(name, (queue) => deps(queue, partitions, 1));

    expect(failures).toEqual([]);
    expect(reports[0]?.partition).toMatchObject({ outcome: "cleaned", days: [...JANUARY], rowsDeleted: 12 });
    expect(slices.map((slice) => slice.rows)).toEqual([...Array(12).fill(1), 0]);
    expect(slices.every((slice) => slice.where === "twin")).toBe(true);
    // One statement a slice, each finding the next slice's bound, and one more for the first bound.
    const twin = statements.filter((sql) => sql.includes("archiver_twin__"));
    expect(twin.filter((sql) => sql.includes("SUM("))).toHaveLength(13);
    expect(twin.filter((sql) => sql.startsWith("SELECT JSON_ARRAY("))).toHaveLength(1);
    expect(await pt.rowsByDay(name)).toEqual({});
    expect(await fx.deps().state.cleanedDays(name)).toEqual([...JANUARY]);
    expect(await pt.twins()).toEqual([]);
  });

  it("waits on the throttle before every slice, the pause between chunks once per CLEANUP_CHUNK_ROWS rows hashed", async () => {
    const name = await pt.table(MONTHLY, [...JANUARY], [...JANUARY]);
    const { slices, partitions } = slicesListed();
    const before = fx.sleeps.length;

    const { reports } = await pt.clean(name, (queue) =>
      fx.deps({ queue, partitions, settings: { partitionSliceRows: 2, chunkRows: 4, pauseMs: 7 } }),
    );

    expect(reports[0]?.partition).toMatchObject({ outcome: "cleaned", rowsDeleted: 12 });
    // Seven slices (12 rows, 2 a slice, the last empty) cross 4, 8 and 12 rows hashed: three pauses.
    expect(slices).toHaveLength(7);
    expect(fx.sleeps.slice(before)).toEqual([7, 7, 7]);
  });

  it("reads a twin that fits one slice in one statement, as before slices", async () => {
    const name = await pt.table(MONTHLY, [...JANUARY], [...JANUARY]);
    const { slices, partitions } = slicesListed();

    const { reports } = await pt.clean(name, (queue) => deps(queue, partitions, 12));

    expect(reports[0]?.partition).toMatchObject({ outcome: "cleaned", rowsDeleted: 12 });
    expect(slices).toEqual([]);
  });

  it.each([
    ["a changed row", "UPDATE {twin} SET note = 'changed' WHERE created_at = '2024-01-11 02:00:00'"],
    [
      "an extra row",
      "INSERT INTO {twin} (id, created_at, note) VALUES (900, '2024-01-11 09:00:00', 'extra')",
    ],
    ["a missing row", "DELETE FROM {twin} WHERE created_at = '2024-01-11 02:00:00'"],
  ])("refuses a twin with %s in the words one statement uses, and puts it back", async (_what, change) => {
    const reasons: string[] = [];
    for (const sliceRows of [5, 1000]) {
      const name = await pt.table(MONTHLY, [...JANUARY], [...JANUARY]);
      const adapter = createMysqlPartitionedTable(fx.pool);
      let changed = false;
      const changing: PartitionedTable = {
        ...adapter,
        secondsSinceWrite: async () => 3600,
        detach: async (table, partition) => {
          await adapter.detach(table, partition);
          if (changed) return;
          changed = true;
          await fx.query(change.replace("{twin}", `\`${adapter.twinName(table, partition)}\``));
        },
      };

      const { reports } = await pt.clean(name, (queue) => deps(queue, changing, sliceRows));

      expect(reports[0]?.partition).toMatchObject({ outcome: "chunked" });
      reasons.push((reports[0]?.partition?.reason ?? "").replaceAll(name, "{table}"));
      expect(await pt.twins()).toEqual([]);
      expect(await fx.deps().state.cleanedDays(name)).toEqual(["2024-01-10", "2024-01-12"]);
    }
    expect(reasons[0]).toMatch(/^after detaching: 2024-01-11 is refused: /);
    // Sliced (5 rows a statement) and in one statement (1,000), the same refusal.
    expect(reasons[0]).toBe(reasons[1]);
  });

  it("a process that dies between slices leaves the twin; the retry verifies it again and cleans it exactly", async () => {
    const name = await pt.table(MONTHLY, [...JANUARY, "2024-02-10"], [...JANUARY]);
    const { queue, task } = await pt.partitionTask(name);
    const adapter = createMysqlPartitionedTable(fx.pool);
    let calls = 0;
    const dies: PartitionedTable = {
      ...adapter,
      sliceFigures: async (schema, column, rows, slice) => {
        calls += 1;
        if (calls === 3) throw new Error("killed");
        return adapter.sliceFigures(schema, column, rows, slice);
      },
    };

    await expect(cleanPartitionTask(deps(queue, dies, 5), task)).rejects.toThrow("killed");
    expect(await pt.twins()).toEqual([
      { table: name, partition: "p2024_01", twin: expect.stringMatching(/^archiver_twin__/), rows: 12 },
    ]);
    expect(await fx.deps().state.cleanedDays(name)).toEqual([]);

    const { slices, partitions } = slicesListed();
    const report = await cleanPartitionTask(deps(queue, partitions, 5), task);

    expect(report.partition).toMatchObject({ outcome: "cleaned", days: [...JANUARY], rowsDeleted: 12 });
    expect(slices.map((slice) => slice.rows)).toEqual([5, 5, 2]);
    expect(await pt.twins()).toEqual([]);
    expect(await pt.rowsByDay(name)).toEqual({ "2024-02-10": 4 });
    expect(await fx.deps().state.cleanedDays(name)).toEqual([...JANUARY]);
  });

  it("a key that cannot be sliced (text) is verified as before slices: a day at a time, then counted", async () => {
    const name = uniqueName("texts");
    await fx.query(
      `CREATE TABLE \`${name}\` (code VARCHAR(20) NOT NULL, created_at DATETIME(6) NOT NULL,
         PRIMARY KEY (code, created_at), KEY (created_at)) ${MONTHLY}`,
    );
    for (const day of JANUARY) {
      for (const hour of [1, 2, 3]) {
        await fx.query(`INSERT INTO \`${name}\` VALUES (?, ?)`, [`c${day}${hour}`, `${day} 0${hour}:00:00`]);
      }
    }
    for (const day of JANUARY) await fx.copy(name, day);
    const { slices, partitions } = slicesListed();

    const { reports, failures } = await pt.clean(name, (queue) =>
      fx.deps({ queue, partitions, settings: { partitionSliceRows: 1, chunkRows: 1 } }),
    );

    expect(failures).toEqual([]);
    expect(reports[0]?.partition).toMatchObject({ outcome: "cleaned", days: [...JANUARY], rowsDeleted: 9 });
    expect(slices).toEqual([]);
  });
});

/** Cleanup deps whose twins are hashed `sliceRows` rows a statement, on a partition last written an hour ago. */
function deps(queue: MemoryTaskQueue, partitions: PartitionedTable, sliceRows: number) {
  return fx.deps({ queue, partitions, settings: { partitionSliceRows: sliceRows } });
}

/** The MySQL partition adapter listing each slice it hashed (where, and how many rows). */
function slicesListed(statements?: string[]): {
  slices: { where: string; rows: number }[];
  partitions: PartitionedTable;
} {
  const adapter = createMysqlPartitionedTable(statements ? pt.spyingPool(statements) : fx.pool);
  const slices: { where: string; rows: number }[] = [];
  return {
    slices,
    partitions: {
      ...adapter,
      secondsSinceWrite: async () => 3600,
      sliceFigures: async (schema, column, rows, slice) => {
        const read = await adapter.sliceFigures(schema, column, rows, slice);
        const held = [...read.figures.days.values()].reduce((sum, figures) => sum + figures.rows, 0);
        slices.push({ where: "twinOf" in rows ? "twin" : "partition", rows: held + read.figures.outside });
        return read;
      },
    },
  };
}

/** Every slice of `where`, `limit` rows each, as the figures of each slice. */
async function allSlices(
  partitions: PartitionedTable,
  schema: TableSchema,
  where: PartitionRows,
  limit: number,
  chained: boolean,
): Promise<{ rows: number; days: ReadonlyMap<string, DayFigures> }[]> {
  const slices = [];
  let cursor: { after?: readonly string[]; upTo?: readonly string[] | null } = {};
  for (;;) {
    const slice = await partitions.sliceFigures(schema, "created_at", where, { ...cursor, limit });
    const rows = [...slice.figures.days.values()].reduce((sum, figures) => sum + figures.rows, 0);
    slices.push({ rows, days: slice.figures.days });
    if (!slice.last) return slices;
    // Chained, each slice starts from the bound the last one found; otherwise each finds its own.
    cursor =
      chained && slice.next !== undefined ? { after: slice.last, upTo: slice.next } : { after: slice.last };
  }
}

/** The slices' figures added up by day. */
function summed(slices: readonly { days: ReadonlyMap<string, DayFigures> }[]): Map<string, DayFigures> {
  const days = new Map<string, DayFigures>();
  for (const slice of slices) {
    for (const [day, figures] of slice.days) {
      const before = days.get(day);
      days.set(day, before ? addFigures(before, figures) : figures);
    }
  }
  return days;
}
