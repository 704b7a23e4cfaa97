import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidInputError } from "../errors";
import type { CalendarDay } from "../model/calendar-day";
import type { Row, SourceColumn, TableSchema } from "../model/table-schema";
import type { DayStreamStats, SourceDatabase } from "../ports/source-database";
import { type SourceContractTable, sourceContractTables as tables } from "./source-database-contract-tables";

/** What a SourceDatabase adapter hands the contract suite. */
export interface SourceDatabaseContractSubject {
  readonly source: SourceDatabase;
  /** Removes what setup created and closes the source. */
  cleanup(): Promise<void>;
}

/**
 * The behaviour every SourceDatabase adapter must have (see
 * ports/source-database.ts): tables described as written, days bounded by
 * `column >= 'D 00:00:00' AND column < 'D+1 00:00:00'` with NULL and zero
 * dates in no day, canonical values, exact key figures, and one content
 * fingerprint, order-independent and sensitive to every value, that the
 * stream and the figures agree on. The suite only reads: `setup` creates the
 * tables of source-database-contract-tables.ts, with their rows, once.
 */
export function describeSourceDatabaseContract(
  name: string,
  setup: (tables: readonly SourceContractTable[]) => Promise<SourceDatabaseContractSubject>,
): void {
  describe(`SourceDatabase contract: ${name}`, () => {
    let subject: SourceDatabaseContractSubject;
    const source = () => subject.source;
    const schemaOf = async (table: { schema: TableSchema }) => {
      const schema = await source().describeTable(table.schema.name);
      if (!schema) throw new Error(`${table.schema.name} is not described`);
      return schema;
    };
    const read = async (table: { schema: TableSchema }, day: CalendarDay, batchRows = 1000) => {
      const stream = source().streamDay(await schemaOf(table), "at", day, batchRows);
      const batches: (readonly Row[])[] = [];
      for await (const batch of stream.batches) batches.push(batch);
      const rows = batches.flat().sort((a, b) => (BigInt(String(a[0])) < BigInt(String(b[0])) ? -1 : 1));
      return { batches, rows, ids: rows.map((row) => String(row[0])), stats: stream.stats() };
    };
    const figures = async (table: { schema: TableSchema }, day: CalendarDay) =>
      source().dayFigures(await schemaOf(table), "at", day);

    beforeAll(async () => {
      subject = await setup(Object.values(tables));
    });
    afterAll(async () => {
      await subject?.cleanup();
    });

    it("describes a table's columns, logical types, primary key and indexed columns", async () => {
      for (const table of [tables.events, tables.pairs]) {
        const schema = await schemaOf(table);
        expect(schema.name).toBe(table.schema.name);
        // Column types and character sets are the source's own words; the rest is what every source agrees on.
        const shared = ({ columnType: _, characterSet: __, ...rest }: SourceColumn) => rest;
        expect(schema.columns.map(shared)).toEqual(table.schema.columns.map(shared));
        expect(schema.primaryKey).toEqual(table.schema.primaryKey);
        expect([...schema.indexLeadingColumns].sort()).toEqual([...table.schema.indexLeadingColumns].sort());
      }
      expect(await source().describeTable("no_such_table")).toBeUndefined();
    });

    it("finds the first day with rows, across gaps, from `from` on and before `before`", async () => {
      const first = (from: string, before: string, table = "events") =>
        source().firstDayWithRows(table, "at", from, before);
      expect(await first("2024-01-01", "2025-01-01")).toBe("2024-01-01");
      expect(await first("2024-01-02", "2025-01-01")).toBe("2024-01-05");
      expect(await first("2024-01-07", "2025-01-01")).toBe("2024-02-10");
      expect(await first("2024-03-02", "2025-01-01")).toBe("2024-04-01");
      expect(await first("2024-04-02", "2025-01-01")).toBeUndefined();
      expect(await first("2024-01-05", "2024-01-06")).toBe("2024-01-05");
      expect(await first("2024-01-07", "2024-02-10")).toBeUndefined();
      expect(await first("2024-02-10", "2024-02-10")).toBeUndefined();
      expect(await first("1000-01-01", "9999-12-31", "empty_events")).toBeUndefined();
    });

    it("steps over zero and partial zero dates, which name no day", async () => {
      const first = (from: string, before: string) => source().firstDayWithRows("events", "at", from, before);
      expect(await first("1000-01-01", "2024-01-01")).toBeUndefined();
      expect(await first("2023-01-01", "2025-01-01")).toBe("2024-01-01");
      expect(await first("2024-03-01", "2024-04-02")).toBe("2024-03-01");
    });

    it("answers one first day per `from`, in their order, in one call", async () => {
      const froms = ["2023-05-31", "2024-01-02", "2024-03-02", "2024-04-02", "2024-01-06"];
      expect(await source().firstDaysWithRows("events", "at", froms, "2025-01-01")).toEqual([
        "2024-01-01",
        "2024-01-05",
        "2024-04-01",
        undefined,
        "2024-01-06",
      ]);
      expect(await source().firstDaysWithRows("events", "at", [], "2025-01-01")).toEqual([]);
    });

    it("names a missing table or column as invalid input", async () => {
      await expect(
        source().firstDayWithRows("no_such_table", "at", "2024-01-01", "2025-01-01"),
      ).rejects.toBeInstanceOf(InvalidInputError);
      await expect(
        source().firstDayWithRows("events", "nope", "2024-01-01", "2025-01-01"),
      ).rejects.toMatchObject({ field: "column" });
      const events = await schemaOf(tables.events);
      expect(() => source().streamDay(events, "nope", "2024-01-01", 10)).toThrow(InvalidInputError);
      await expect(source().dayFigures(events, "nope", "2024-01-01")).rejects.toBeInstanceOf(
        InvalidInputError,
      );
    });

    it("keeps the first and last microsecond of a day in that day, and zero dates in none", async () => {
      expect((await read(tables.events, "2024-01-01")).ids).toEqual(["1", "2"]);
      expect((await read(tables.events, "2024-01-05")).ids).toEqual(["3"]);
      expect((await read(tables.events, "2024-01-06")).ids).toEqual(["4"]);
      expect((await read(tables.events, "2024-02-29")).ids).toEqual(["6"]);
      expect((await read(tables.events, "2024-03-01")).ids).toEqual(["7"]);
      expect((await read(tables.events, "2023-05-31")).ids).toEqual([]);
      expect((await read(tables.events, "2022-12-31")).ids).toEqual([]);
    });

    it("streams canonical values, a zero date read as null and counted", async () => {
      const day = await read(tables.events, "2024-01-01");
      expect(day.rows).toEqual([
        ["1", "2024-01-01 00:00:00.000000", "first", "10.50", "1990-02-28"],
        ["2", "2024-01-01 12:00:00.000000", null, "-0.01", null],
      ]);
      expect(day.stats).toMatchObject({ rows: 2, zeroDates: 1 });
      expect(day.stats.bytes).toBeGreaterThan(0);
      expect((await read(tables.events, "2024-04-01")).ids).toEqual([
        "8",
        "18446744073709551614",
        "18446744073709551615",
      ]);
      expect((await read(tables.events, "2024-02-10")).rows[0]?.[2]).toBe("naïve café 🎉");
    });

    it("streams in batches of at most batchRows, with the stream's figures once it is read", async () => {
      const day = await read(tables.events, "2024-04-01", 2);
      expect(day.batches.map((batch) => batch.length).sort()).toEqual([1, 2]);
      expect(day.stats).toMatchObject({ rows: 3, zeroDates: 0 });
      expect(day.stats.fingerprint).toBe((await figures(tables.events, "2024-04-01")).fingerprint);
      const empty = await read(tables.events, "2024-01-02");
      expect(empty.rows).toEqual([]);
      expect(empty.stats).toMatchObject<Partial<DayStreamStats>>({ rows: 0, zeroDates: 0, fingerprint: "0" });
    });

    it("streams a day in ascending key order when asked, whatever order its times or writes give", async () => {
      const inKeyOrder = async (table: { schema: TableSchema }, day: CalendarDay) => {
        const stream = source().streamDay(await schemaOf(table), "at", day, 1, { inKeyOrder: true });
        const ids: string[] = [];
        for await (const batch of stream.batches) ids.push(...batch.map((row) => String(row[0])));
        return { ids, stats: stream.stats() };
      };
      // Times rise as keys fall on 2024-04-01, and `reversed` was written last row first.
      const keys = ["8", "18446744073709551614", "18446744073709551615"];
      for (const table of [tables.events, tables.reversed]) {
        const day = await inKeyOrder(table, "2024-04-01");
        expect(day.ids).toEqual(keys);
        expect(day.stats.fingerprint).toBe((await figures(table, "2024-04-01")).fingerprint);
        expect((await inKeyOrder(table, "2024-01-01")).ids).toEqual(["1", "2"]);
      }
    });

    it("counts a day's rows and sums a BIGINT UNSIGNED key exactly beyond 2^64", async () => {
      expect(await figures(tables.events, "2024-04-01")).toEqual({
        rows: 3,
        fingerprint: expect.stringMatching(/^[1-9]\d*$/),
        key: {
          column: "id",
          count: 3,
          sum: (18446744073709551615n + 18446744073709551614n + 8n).toString(),
          min: "8",
          max: "18446744073709551615",
        },
      });
      expect((await figures(tables.events, "2024-02-29")).rows).toBe(1);
    });

    it("gives an empty day zero rows, a zero fingerprint and sum, and no bounds", async () => {
      expect(await figures(tables.events, "2024-01-02")).toEqual({
        rows: 0,
        fingerprint: "0",
        key: { column: "id", count: 0, sum: "0", min: "", max: "" },
      });
      expect(await figures(tables.emptyEvents, "2024-01-01")).toMatchObject({ rows: 0, fingerprint: "0" });
    });

    it("counts rows and content only when the key is not one integer column", async () => {
      expect(await figures(tables.pairs, "2024-01-01")).toEqual({
        rows: 2,
        fingerprint: expect.stringMatching(/^[1-9]\d*$/),
      });
    });

    it("fingerprints content whatever the row order, and tells any changed value", async () => {
      const [events, reversed, edited] = await Promise.all(
        [tables.events, tables.reversed, tables.edited].map((table) => figures(table, "2024-01-01")),
      );
      expect(reversed?.fingerprint).toBe(events?.fingerprint);
      expect(edited?.rows).toBe(events?.rows);
      expect(edited?.key).toEqual(events?.key);
      expect(edited?.fingerprint).not.toBe(events?.fingerprint);
      const other = await figures(tables.events, "2024-01-05");
      expect(other.fingerprint).not.toBe(events?.fingerprint);
    });
  });
}
