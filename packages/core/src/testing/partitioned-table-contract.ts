import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CalendarDay } from "../model/calendar-day";
import type { DayFigures } from "../model/day-figures";
import type { Row, TableSchema } from "../model/table-schema";
import type { PartitionedTable, PartitionRows } from "../ports/partitioned-table";
import type { SourceDatabase } from "../ports/source-database";
import { sourceColumn } from "./fakes/source-column";

/**
 * The bound of the suite's partitioned tables: `p_old` holds the rows before
 * it (and those on no day), `pmax` the rest. Written as the MySQL adapter
 * reads a `VALUES LESS THAN` bound back.
 */
export const CONTRACT_BELOW = "2024-01-03 00:00:00";

/** A table of the suite: its columns (as information_schema describes them) and its rows, in canonical values. */
export interface PartitionedContractTable {
  readonly schema: TableSchema;
  readonly rows: readonly Row[];
}

/**
 * `id BIGINT`, `created_at DATETIME(6)` (the partitioning column, so in the
 * primary key, as MySQL requires), `note VARCHAR(40) NULL`: in `p_old` three
 * rows on 2024-01-01 (its first and last microsecond among them), two on
 * 2024-01-02 (the last instant below the bound among them) and a zero date;
 * in `pmax` two rows on 2024-01-03 (one at the bound) and one on 2024-01-04.
 */
export function partitionedContractTable(name: string): PartitionedContractTable {
  return {
    schema: {
      name,
      columns: [
        sourceColumn("id", "bigint(20)", false),
        sourceColumn("created_at", "datetime(6)", false),
        sourceColumn("note", "varchar(40)"),
      ],
      primaryKey: ["id", "created_at"],
      indexLeadingColumns: ["id", "created_at"],
    },
    rows: [
      ["1", "2024-01-01 00:00:00.000000", "first instant"],
      ["2", "2024-01-01 08:30:00.250000", null],
      ["3", "2024-01-01 23:59:59.999999", "last instant"],
      ["4", "2024-01-02 12:00:00.000000", "b"],
      ["5", "2024-01-02 23:59:59.999999", "just below the bound"],
      ["6", "0000-00-00 00:00:00.000000", "zero date"],
      ["7", "2024-01-03 00:00:00.000000", "at the bound"],
      ["8", "2024-01-03 18:00:00.000000", "c"],
      ["9", "2024-01-04 09:00:00.000000", "d"],
    ],
  };
}

/** The days of `p_old` and `pmax` in partitionedContractTable, and how many rows each holds. */
const OLD_DAYS = new Map<CalendarDay, number>([
  ["2024-01-01", 3],
  ["2024-01-02", 2],
]);
const MAX_DAYS = new Map<CalendarDay, number>([
  ["2024-01-03", 2],
  ["2024-01-04", 1],
]);
/** Rows of `p_old` on no day (the zero date). */
const OLD_OUTSIDE = 1;
const OLD_ROWS = [...OLD_DAYS.values()].reduce((a, b) => a + b, OLD_OUTSIDE);

/** What a PartitionedTable implementation hands the contract suite. */
export interface PartitionedTableContractSubject {
  /**
   * The port. The suite reads it again after each createTable: an
   * implementation that sees a single table as partitioned may hand a new
   * port for each table created.
   */
  readonly partitions: PartitionedTable;
  /** The source holding the tables: the suite describes them and reads their day figures through it. */
  readonly source: SourceDatabase;
  /**
   * Creates the table with its rows, `PARTITION BY RANGE COLUMNS(created_at)`
   * into `p_old` (below CONTRACT_BELOW) and `pmax` (below MAXVALUE). Each
   * test creates its own.
   */
  createTable(table: PartitionedContractTable): Promise<void>;
  /** Creates the table with its rows, unpartitioned. */
  createUnpartitionedTable(table: PartitionedContractTable): Promise<void>;
  /** Writes rows into the live table behind the port's back: each lands in its partition by range. */
  insertRows(table: string, rows: readonly Row[]): Promise<void>;
  /** Removes what the suite created and closes what setup opened. */
  cleanup(): Promise<void>;
}

/**
 * The behaviour every PartitionedTable must have (see
 * ports/partitioned-table.ts), on one table range-partitioned into `p_old`
 * and `pmax`: its partitioning read back with each bound as an instant; a
 * partition's (or twin's) rows counted and figured by day exactly as the
 * source figures its days, rows on no day apart; detaching that moves the
 * partition's rows, figures unchanged, into a twin named after the table and
 * partition and listed as such; putting back that moves every twin row back
 * into the live table, rows written to the partition meanwhile included and
 * kept, and leaves the twin empty; dropping the twin. Fingerprints are the
 * implementation's own: only its figures of the same rows are compared.
 */
export function describePartitionedTableContract(
  name: string,
  setup: () => Promise<PartitionedTableContractSubject>,
): void {
  describe(`PartitionedTable contract: ${name}`, () => {
    let subject: PartitionedTableContractSubject;
    const port = () => subject.partitions;
    let tables = 0;
    const oldRows: PartitionRows = { partition: "p_old" };
    const maxRows: PartitionRows = { partition: "pmax" };
    const twinRowsOf: PartitionRows = { twinOf: "p_old" };

    /** Creates a partitioned table under a name of this test's own; its described schema and helpers. */
    async function arrange() {
      const table = partitionedContractTable(`t${++tables}`);
      await subject.createTable(table);
      const schema = await subject.source.describeTable(table.schema.name);
      if (!schema) throw new Error(`${table.schema.name} is not described`);
      const name = schema.name;
      /** The source's own figures of each of `days`, in the live table now. */
      const sourceDays = async (days: Iterable<CalendarDay>) => {
        const figures = new Map<CalendarDay, DayFigures>();
        for (const day of days) figures.set(day, await subject.source.dayFigures(schema, "created_at", day));
        return figures;
      };
      const figures = (rows: PartitionRows, day?: CalendarDay) =>
        port().dayFigures(schema, "created_at", rows, day);
      const counts = (rows: PartitionRows) => port().dayCounts(name, "created_at", rows);
      /** This table's twins, as detachedTwins lists them. */
      const twins = async () => (await port().detachedTwins()).filter((twin) => twin.table === name);
      return { table: name, schema, sourceDays, figures, counts, twins };
    }

    beforeAll(async () => {
      subject = await setup();
    });
    afterAll(async () => {
      await subject?.cleanup();
    });

    it("reads the range partitioning with each bound as an instant; an unpartitioned table has none", async () => {
      const { table } = await arrange();
      expect(await port().partitioning(table)).toEqual({
        kind: "range",
        column: "created_at",
        partitions: [
          { name: "p_old", below: CONTRACT_BELOW },
          { name: "pmax", below: undefined },
        ],
      });
      const plain = partitionedContractTable(`t${++tables}`);
      await subject.createUnpartitionedTable(plain);
      expect(await port().partitioning(plain.schema.name)).toEqual({ kind: "none" });
    });

    it("counts and figures each partition's days as the source figures them, rows on no day apart", async () => {
      const { sourceDays, figures, counts } = await arrange();
      expect(await counts(oldRows)).toEqual({ days: OLD_DAYS, outside: OLD_OUTSIDE });
      expect(await counts(maxRows)).toEqual({ days: MAX_DAYS, outside: 0 });

      const old = await sourceDays(OLD_DAYS.keys());
      expect([...old.values()].map((day) => day.rows)).toEqual([...OLD_DAYS.values()]);
      // Figures compared below carry the content fingerprint: equal figures are equal content.
      expect([...old.values()].every((day) => /^[1-9]\d*$/.test(day.fingerprint ?? ""))).toBe(true);
      expect(await figures(oldRows)).toEqual({ days: old, outside: OLD_OUTSIDE });
      const max = await sourceDays(MAX_DAYS.keys());
      expect(await figures(maxRows)).toEqual({ days: max, outside: 0 });

      for (const [day, dayFigures] of [...old, ...max]) {
        const partition = OLD_DAYS.has(day) ? oldRows : maxRows;
        const other = OLD_DAYS.has(day) ? maxRows : oldRows;
        expect(await figures(partition, day)).toEqual({ days: new Map([[day, dayFigures]]), outside: 0 });
        expect(await figures(other, day)).toEqual({ days: new Map(), outside: 0 });
      }
    });

    it("names the twin after its table and partition, and describes the exchange", async () => {
      const { table } = await arrange();
      const twin = port().twinName(table, "p_old");
      expect(twin).toContain(table);
      expect(twin).toContain("p_old");
      expect(port().twinName(table, "pmax")).not.toBe(twin);
      expect(port().describeDetach(table, "p_old")).toMatch(/EXCHANGE PARTITION/);
      expect(port().describeDetach(table, "p_old")).toContain(twin);
      expect(await port().twinRows(table, "p_old")).toBeUndefined();
      expect(await port().detachedPartitions(table)).toEqual([]);
    });

    it("detaches a partition into its twin with its figures, and drops the twin with its rows", async () => {
      const { table, sourceDays, figures, counts, twins } = await arrange();
      const before = await figures(oldRows);
      const beforeCounts = await counts(oldRows);
      const maxBefore = await figures(maxRows);

      await port().detach(table, "p_old");
      for (const day of (await sourceDays(OLD_DAYS.keys())).values()) expect(day.rows).toBe(0);
      expect(await counts(oldRows)).toEqual({ days: new Map(), outside: 0 });
      expect(await figures(maxRows)).toEqual(maxBefore);
      expect(await port().twinRows(table, "p_old")).toBe(OLD_ROWS);
      expect(await port().twinRows(table, "pmax")).toBeUndefined();
      expect(await figures(twinRowsOf)).toEqual(before);
      expect(await counts(twinRowsOf)).toEqual(beforeCounts);
      for (const [day, dayFigures] of before.days) {
        expect(await figures(twinRowsOf, day)).toEqual({ days: new Map([[day, dayFigures]]), outside: 0 });
      }
      expect(await port().detachedPartitions(table)).toEqual(["p_old"]);
      expect(await twins()).toEqual([
        { table, partition: "p_old", twin: port().twinName(table, "p_old"), rows: OLD_ROWS },
      ]);

      await port().dropTwin(table, "p_old");
      expect(await port().twinRows(table, "p_old")).toBeUndefined();
      expect(await port().detachedPartitions(table)).toEqual([]);
      expect(await twins()).toEqual([]);
      for (const day of (await sourceDays(OLD_DAYS.keys())).values()) expect(day.rows).toBe(0);
      expect(await figures(maxRows)).toEqual(maxBefore);
    });

    it("puts every twin row back: the live table's figures as before, the twin empty until dropped", async () => {
      const { table, sourceDays, figures, twins } = await arrange();
      const before = await sourceDays(OLD_DAYS.keys());
      const partitionBefore = await figures(oldRows);

      await port().detach(table, "p_old");
      expect(await port().putBack(table, "p_old")).toBe(OLD_ROWS);
      expect(await sourceDays(OLD_DAYS.keys())).toEqual(before);
      expect(await figures(oldRows)).toEqual(partitionBefore);
      expect(await port().twinRows(table, "p_old")).toBe(0);
      // An empty twin is still a twin: the next attempt finds it and drops it.
      expect(await port().detachedPartitions(table)).toEqual(["p_old"]);
      expect(await twins()).toEqual([
        { table, partition: "p_old", twin: port().twinName(table, "p_old"), rows: 0 },
      ]);

      await port().dropTwin(table, "p_old");
      expect(await port().twinRows(table, "p_old")).toBeUndefined();
      expect(await port().detachedPartitions(table)).toEqual([]);
      expect(await sourceDays(OLD_DAYS.keys())).toEqual(before);
    });

    it("keeps a row written to a detached partition's range in the live table, and puts back every twin row beside it", async () => {
      const { table, sourceDays, figures, counts } = await arrange();
      const day: CalendarDay = "2024-01-01";
      const [before] = (await sourceDays([day])).values();
      if (!before) throw new Error("no figures");

      await port().detach(table, "p_old");
      const detached = await figures(twinRowsOf);
      await subject.insertRows(table, [["10", `${day} 12:00:00.000000`, "late"]]);
      const [late] = (await sourceDays([day])).values();
      expect(late?.rows).toBe(1);
      expect(await counts(oldRows)).toEqual({ days: new Map([[day, 1]]), outside: 0 });
      expect(await port().twinRows(table, "p_old")).toBe(OLD_ROWS);
      expect(await figures(twinRowsOf)).toEqual(detached);

      expect(await port().putBack(table, "p_old")).toBe(OLD_ROWS);
      expect(await port().twinRows(table, "p_old")).toBe(0);
      const [after] = (await sourceDays([day])).values();
      expect(after?.rows).toBe(before.rows + 1);
      // Fingerprints are sums of row hashes: the day's rows and the late row's, exactly.
      expect(after?.fingerprint).toBe(
        (BigInt(before.fingerprint ?? "") + BigInt(late?.fingerprint ?? "")).toString(),
      );
      expect(await counts(oldRows)).toEqual({
        days: new Map([...OLD_DAYS].map(([d, rows]) => [d, d === day ? rows + 1 : rows])),
        outside: OLD_OUTSIDE,
      });
    });
  });
}
