import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CalendarDay } from "../model/calendar-day";
import type { ChunkBy, ChunkTarget } from "../model/day-chunks";
import type { DayDeleter } from "../ports/day-deleter";
import type { SourceDatabase } from "../ports/source-database";
import {
  bigTable,
  type DayDeleterContractTable,
  duplicateTable,
  negativeTable,
  treeTable,
  zeroDateTable,
} from "./day-deleter-contract-tables";

/** A table `childTable` whose column `parent_id` references the cleaned table's `id`, ON DELETE RESTRICT. */
export interface ContractReference {
  readonly constraint: string;
  readonly childTable: string;
  /** One referencing row per value: each an `id` of the cleaned table. */
  readonly referenced: readonly string[];
}

/** What a DayDeleter adapter hands the contract suite. */
export interface DayDeleterContractSubject {
  readonly deleter: DayDeleter;
  /** The source the deleter deletes from: the suite describes tables and reads day figures through it. */
  readonly source: SourceDatabase;
  /** Creates the table with its rows (each test creates its own). */
  createTable(table: DayDeleterContractTable): Promise<void>;
  /** Deletes at most `limit` rows whose `column` holds `value`, behind the deleter's back. */
  deleteRows(table: string, column: string, value: string, limit: number): Promise<void>;
  /** The values of `column` in every row of the table now, as text, in no particular order. */
  values(table: string, column: string): Promise<string[]>;
  /** Gives the table a DELETE trigger named `name`. */
  addDeleteTrigger(table: string, name: string): Promise<void>;
  /** Creates a table that references the table's `id` through a foreign key, with its rows. */
  addReference(table: string, reference: ContractReference): Promise<void>;
  /** Makes the table's `parent_id` a foreign key `constraint` to its own `id`, ON DELETE RESTRICT. */
  addSelfReference(table: string, constraint: string): Promise<void>;
  /** Removes what the suite created and closes what setup opened. */
  cleanup(): Promise<void>;
}

/** A table nothing references and no trigger watches. */
const none = { referencingKeys: [], deleteTriggers: [] };
const unsignedKey: ChunkBy = { kind: "key", column: "id", unsigned: true };
const signedKey: ChunkBy = { kind: "key", column: "id", unsigned: false };

/** Chunks without their fingerprints, which are the implementation's own. */
const shapes = (chunks: readonly { fingerprint: string }[]) =>
  chunks.map(({ fingerprint: _, ...rest }) => rest);

/**
 * The behaviour every DayDeleter must have (see ports/day-deleter.ts): a day
 * planned into chunks of at most `chunkRows` rows in rising key (or filter
 * value) order, exact near 2^64 and below zero, that add up to the source's
 * figures of the day and never take a partial zero date; a chunk deleted
 * only while its rows are exactly the planned ones (else "changed", and
 * "absent" once gone), only when the table gained no foreign key or trigger
 * and nothing references the chunk; a whole-day chunk refused when the day
 * holds another row; a self-referencing key counted without the rows
 * deleted before the rows they reference; and the statement an operator reads.
 */
export function describeDayDeleterContract(
  name: string,
  setup: () => Promise<DayDeleterContractSubject>,
): void {
  describe(`DayDeleter contract: ${name}`, () => {
    let subject: DayDeleterContractSubject;
    const deleter = () => subject.deleter;
    let tables = 0;

    /** Creates the table under a name of this test's own; its chunk target on `day`. */
    async function arrange(make: (name: string) => DayDeleterContractTable, day: CalendarDay, by: ChunkBy) {
      const table = make(`t${++tables}`);
      await subject.createTable(table);
      const schema = await subject.source.describeTable(table.schema.name);
      if (!schema) throw new Error(`${table.schema.name} is not described`);
      const target: ChunkTarget = { scope: { table: schema.name, column: "at", day }, schema, by };
      const values = async (column = by.kind === "key" ? "id" : "note") =>
        (await subject.values(schema.name, column)).sort();
      return { table: schema.name, target, values };
    }

    beforeAll(async () => {
      subject = await setup();
    });
    afterAll(async () => {
      await subject?.cleanup();
    });

    it("plans every key of the day near 2^64 exactly, and only the day's, with the source's fingerprint", async () => {
      const { target } = await arrange(bigTable, "2024-01-01", unsignedKey);
      const chunks = await deleter().planChunks(target, 3);
      expect(shapes(chunks)).toEqual([
        { first: "18446744073709551610", last: "18446744073709551612", rows: 3, sum: "55340232221128654833" },
        { first: "18446744073709551613", last: "18446744073709551613", rows: 1, sum: "18446744073709551613" },
      ]);
      expect(chunks.every((chunk) => /^[1-9]\d*$/.test(chunk.fingerprint))).toBe(true);
      const day = await subject.source.dayFigures(target.schema, "at", "2024-01-01");
      expect(chunks.reduce((sum, chunk) => sum + BigInt(chunk.fingerprint), 0n).toString()).toBe(
        day.fingerprint,
      );
      await expect(deleter().planChunks(target, 0)).rejects.toThrow(/positive integer/);
      expect(
        await deleter().planChunks({ ...target, scope: { ...target.scope, day: "2024-01-03" } }, 3),
      ).toEqual([]);
    });

    it("deletes a chunk only while its rows are exactly the planned ones", async () => {
      const { target, values } = await arrange(bigTable, "2024-01-01", unsignedKey);
      const [first] = await deleter().planChunks(target, 3);
      if (!first) throw new Error("no chunk");

      const tampered = { ...first, sum: "1" };
      expect(await deleter().deleteChunk(target, tampered, none)).toMatchObject({ kind: "changed", rows: 3 });
      const otherContent = { ...first, fingerprint: String(BigInt(first.fingerprint) + 1n) };
      expect(await deleter().deleteChunk(target, otherContent, none)).toMatchObject({
        kind: "changed",
        rows: 3,
        fingerprint: first.fingerprint,
      });
      expect(await values()).toHaveLength(6);

      expect(await deleter().deleteChunk(target, first, none)).toEqual({ kind: "deleted", rows: 3 });
      expect(await deleter().deleteChunk(target, first, none)).toEqual({ kind: "absent" });
      expect(await values()).toEqual([
        "18446744073709551613",
        "18446744073709551614",
        "18446744073709551615",
      ]);
    });

    it("handles signed keys below zero", async () => {
      const { target, values } = await arrange(negativeTable, "2024-01-01", signedKey);
      const chunks = await deleter().planChunks(target, 2);
      expect(shapes(chunks)).toEqual([
        { first: "-5", last: "-3", rows: 2, sum: "-8" },
        { first: "-1", last: "2", rows: 2, sum: "1" },
      ]);
      for (const chunk of chunks) await deleter().deleteChunk(target, chunk, none);
      expect(await values()).toEqual(["4"]);
    });

    it("without a key: chunks by filter value within the day, never a partial zero date", async () => {
      const { target, values } = await arrange(zeroDateTable, "2024-01-31", { kind: "time" });
      const chunks = await deleter().planChunks(target, 1);
      expect(shapes(chunks)).toEqual([
        { first: "2024-01-31 10:00:00", last: "2024-01-31 10:00:00", rows: 1 },
        { first: "2024-01-31 11:00:00", last: "2024-01-31 11:00:00", rows: 1 },
      ]);
      for (const chunk of chunks)
        expect(await deleter().deleteChunk(target, chunk, none)).toEqual({ kind: "deleted", rows: 1 });
      expect(await values()).toEqual(["next", "zero"]);
    });

    it("without a key: never splits one instant; chunks start where the running count passes a multiple of the size", async () => {
      const { table, target, values } = await arrange(duplicateTable, "2024-03-01", { kind: "time" });
      const chunks = await deleter().planChunks(target, 2);
      expect(shapes(chunks)).toEqual([
        { first: "2024-03-01 01:00:00", last: "2024-03-01 01:00:00", rows: 3 },
        { first: "2024-03-01 02:00:00", last: "2024-03-01 02:00:00", rows: 1 },
        { first: "2024-03-01 03:00:00", last: "2024-03-01 04:00:00", rows: 2 },
      ]);
      // One duplicate gone: same instant, fewer rows. The chunk is refused whole.
      await subject.deleteRows(table, "note", "a", 1);
      const [triple] = chunks;
      if (!triple) throw new Error("no chunk");
      expect(await deleter().deleteChunk(target, triple, none)).toMatchObject({ kind: "changed", rows: 2 });
      expect(await values()).toHaveLength(6);
      for (const chunk of chunks.slice(1))
        expect(await deleter().deleteChunk(target, chunk, none)).toMatchObject({ kind: "deleted" });
      expect(await values()).toEqual(["a", "a", "z"]);
    });

    it("takes a whole-day chunk only when the day holds no other row", async () => {
      const { target, values } = await arrange(bigTable, "2024-01-01", unsignedKey);
      const [first] = await deleter().planChunks(target, 3);
      if (!first) throw new Error("no chunk");
      expect(await deleter().deleteChunk(target, { ...first, wholeDay: true }, none)).toMatchObject({
        kind: "changed",
        rows: 4,
      });
      expect(await values()).toHaveLength(6);

      const [planned, ...more] = await deleter().planChunks(target, 4);
      if (!planned) throw new Error("no chunk");
      expect(more).toEqual([]);
      const whole = { ...planned, wholeDay: true };
      const options = { newestFirst: true };
      expect(await deleter().deleteChunk(target, whole, none, options)).toEqual({ kind: "deleted", rows: 4 });
      expect(await deleter().deleteChunk(target, whole, none, options)).toEqual({ kind: "absent" });
      expect(await values()).toEqual(["18446744073709551614", "18446744073709551615"]);
    });

    it("refuses a chunk that is referenced, or whose table gained a key or trigger", async () => {
      const untouched = await arrange(negativeTable, "2024-01-01", signedKey);
      expect(await deleter().sideEffects(untouched.table)).toEqual(none);
      const { table, target, values } = await arrange(bigTable, "2024-01-01", unsignedKey);
      const [first, last] = await deleter().planChunks(target, 3);
      if (!first || !last) throw new Error("no chunks");

      await subject.addDeleteTrigger(table, "audit");
      expect(await deleter().deleteChunk(target, first, none)).toEqual({
        kind: "side-effects-added",
        added: { referencingKeys: [], deleteTriggers: ["audit"] },
      });

      const child = `${table}_child`;
      // Two rows of the day are referenced, and the next day's row.
      const referenced = ["18446744073709551611", "18446744073709551613", "18446744073709551614"];
      await subject.addReference(table, { constraint: "fk_child", childTable: child, referenced });
      const allowedTrigger = { referencingKeys: [], deleteTriggers: ["audit"] };
      expect(await deleter().deleteChunk(target, first, allowedTrigger)).toMatchObject({
        kind: "side-effects-added",
        added: { referencingKeys: [expect.objectContaining({ constraint: "fk_child" })], deleteTriggers: [] },
      });

      // Told of neither: the key, which refuses the delete of a referenced row, is what it names.
      expect(await deleter().deleteChunk(target, first, none)).toMatchObject({
        kind: "side-effects-added",
        added: { referencingKeys: [expect.objectContaining({ constraint: "fk_child" })] },
      });

      const effects = await deleter().sideEffects(table);
      const [key] = effects.referencingKeys;
      expect(effects).toEqual({ referencingKeys: [key], deleteTriggers: ["audit"] });
      expect(key).toMatchObject({
        constraint: "fk_child",
        childTable: child,
        childColumns: ["parent_id"],
        parentColumns: ["id"],
        onDelete: "RESTRICT",
        selfReferencing: false,
      });
      if (!key) throw new Error("no referencing key");
      expect(await deleter().countReferences(target, effects.referencingKeys)).toEqual([{ key, rows: 2 }]);
      expect(await deleter().deleteChunk(target, first, effects)).toEqual({
        kind: "referenced",
        references: [{ key, rows: 1 }],
      });
      expect(await deleter().deleteChunk(target, last, effects)).toEqual({
        kind: "referenced",
        references: [{ key, rows: 1 }],
      });
      expect(await values()).toHaveLength(6);
    });

    it("counts a self-reference only from rows that are not deleted first, and deletes newest first", async () => {
      const { table, target, values } = await arrange(treeTable, "2024-01-01", signedKey);
      await subject.addSelfReference(table, "fk_parent");
      const effects = await deleter().sideEffects(table);
      const [key] = effects.referencingKeys;
      if (!key) throw new Error("no referencing key");
      expect(key).toMatchObject({
        constraint: "fk_parent",
        childTable: table,
        childColumns: ["parent_id"],
        parentColumns: ["id"],
        selfReferencing: true,
      });
      // Rows 2 and 3 are newer than the rows they reference in the same day; row 4 is the next day's.
      expect(await deleter().countReferences(target, [key])).toEqual([{ key, rows: 1 }]);
      const [older, newer] = await deleter().planChunks(target, 2);
      if (!older || !newer) throw new Error("no chunks");
      // Row 3, outside the older chunk, references its row 2; row 4 references row 3.
      expect(await deleter().deleteChunk(target, older, effects, { newestFirst: true })).toEqual({
        kind: "referenced",
        references: [{ key, rows: 1 }],
      });
      expect(await deleter().deleteChunk(target, newer, effects, { newestFirst: true })).toEqual({
        kind: "referenced",
        references: [{ key, rows: 1 }],
      });
      await subject.deleteRows(table, "id", "4", 1);
      expect(await deleter().deleteChunk(target, newer, effects, { newestFirst: true })).toEqual({
        kind: "deleted",
        rows: 1,
      });
      expect(await deleter().deleteChunk(target, older, effects, { newestFirst: true })).toEqual({
        kind: "deleted",
        rows: 2,
      });
      expect(await values()).toEqual([]);
    });

    it("describes the statement an operator would run, values written in", () => {
      const range = { column: "id", unsigned: true, min: "10", max: "20" };
      expect(deleter().describeDelete({ table: "big", column: "at", day: "2024-01-01" }, range)).toBe(
        "DELETE FROM `big` WHERE `at` >= '2024-01-01 00:00:00' AND `at` < '2024-01-02 00:00:00' AND `id` BETWEEN 10 AND 20",
      );
      // On a month's last day, partial zero dates of the next month sort inside the range: they stay out.
      expect(deleter().describeDelete({ table: "zero", column: "at", day: "2024-01-31" })).toBe(
        "DELETE FROM `zero` WHERE `at` >= '2024-01-31 00:00:00' AND `at` < '2024-02-01 00:00:00' AND MONTH(`at`) <> 0 AND DAYOFMONTH(`at`) <> 0",
      );
    });
  });
}
