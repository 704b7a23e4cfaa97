import { describe, expect, it } from "vitest";
import type { Row, TableSchema } from "../../domain/types/table-schema";
import type { ChunkBy, ChunkTarget, ReferencingKey } from "../../ports/day-deleter";
import { createMemoryDayDeleter } from "./memory-day-deleter";
import { createMemorySource, type MemorySource } from "./memory-source";
import { sourceColumn } from "./source-column";

// The cases of mysql-day-deleter.mysql.test.ts, on the in-memory source.

const none = { referencingKeys: [], deleteTriggers: [] };
const unsignedKey: ChunkBy = { kind: "key", column: "id", unsigned: true };

function setup(name: string, key: string | undefined, rows: readonly Row[]) {
  const schema: TableSchema = {
    name,
    columns: [
      sourceColumn("id", key === "signed" ? "int(11)" : "bigint(20) unsigned", key === undefined),
      sourceColumn("at", "datetime(6)"),
    ],
    primaryKey: key ? ["id"] : [],
    indexLeadingColumns: ["at"],
  };
  const source = createMemorySource();
  source.createTable(schema, rows);
  const target = (day: string, by: ChunkBy): ChunkTarget => ({
    scope: { table: name, column: "at", day },
    schema,
    by,
  });
  return { source, deleter: createMemoryDayDeleter(source), schema, target };
}

const shapes = (chunks: readonly { fingerprint: string }[]) =>
  chunks.map(({ fingerprint: _, ...rest }) => rest);
const ids = (source: MemorySource, table: string) => source.rows(table).map((row) => String(row[0]));

const big = () =>
  setup("big", "unsigned", [
    ["18446744073709551610", "2024-01-01 00:00:00.000000"],
    ["18446744073709551611", "2024-01-01 01:00:00.000000"],
    ["18446744073709551612", "2024-01-01 02:00:00.000000"],
    ["18446744073709551613", "2024-01-01 23:59:59.999999"],
    ["18446744073709551614", "2024-01-02 00:00:00.000000"],
    ["18446744073709551615", "2023-12-31 23:59:59.999999"],
  ]);

describe("createMemoryDayDeleter", () => {
  it("plans every key of the day near 2^64 exactly, and only the day's, with the source's fingerprint", async () => {
    const { source, deleter, schema, target } = big();
    const chunks = await deleter.planChunks(target("2024-01-01", unsignedKey), 3);
    expect(shapes(chunks)).toEqual([
      { first: "18446744073709551610", last: "18446744073709551612", rows: 3, sum: "55340232221128654833" },
      { first: "18446744073709551613", last: "18446744073709551613", rows: 1, sum: "18446744073709551613" },
    ]);
    const day = await source.dayFigures(schema, "at", "2024-01-01");
    expect(chunks.reduce((sum, chunk) => sum + BigInt(chunk.fingerprint), 0n).toString()).toBe(
      day.fingerprint,
    );
    await expect(deleter.planChunks(target("2024-01-01", unsignedKey), 0)).rejects.toThrow(
      /positive integer/,
    );
  });

  it("deletes a chunk only while its rows are exactly the planned ones", async () => {
    const { source, deleter, target } = big();
    const day = target("2024-01-01", unsignedKey);
    const [first] = await deleter.planChunks(day, 3);
    if (!first) throw new Error("no chunk");

    expect(await deleter.deleteChunk(day, { ...first, sum: "1" }, none)).toMatchObject({
      kind: "changed",
      rows: 3,
    });
    const otherContent = { ...first, fingerprint: String(BigInt(first.fingerprint) + 1n) };
    expect(await deleter.deleteChunk(day, otherContent, none)).toMatchObject({
      kind: "changed",
      rows: 3,
      fingerprint: first.fingerprint,
    });
    expect(ids(source, "big")).toHaveLength(6);

    expect(await deleter.deleteChunk(day, first, none)).toEqual({ kind: "deleted", rows: 3 });
    expect(await deleter.deleteChunk(day, first, none)).toEqual({ kind: "absent" });
    expect(ids(source, "big").sort()).toEqual([
      "18446744073709551613",
      "18446744073709551614",
      "18446744073709551615",
    ]);
  });

  it("handles signed keys below zero", async () => {
    const { source, deleter, target } = setup("neg", "signed", [
      [-5, "2024-01-01 01:00:00.000000"],
      [-3, "2024-01-01 02:00:00.000000"],
      [-1, "2024-01-01 03:00:00.000000"],
      [2, "2024-01-01 04:00:00.000000"],
      [4, "2024-01-02 04:00:00.000000"],
    ]);
    const day = target("2024-01-01", { kind: "key", column: "id", unsigned: false });
    const chunks = await deleter.planChunks(day, 2);
    expect(shapes(chunks)).toEqual([
      { first: "-5", last: "-3", rows: 2, sum: "-8" },
      { first: "-1", last: "2", rows: 2, sum: "1" },
    ]);
    for (const chunk of chunks) await deleter.deleteChunk(day, chunk, none);
    expect(ids(source, "neg")).toEqual(["4"]);
  });

  it("without a key: never splits one instant, never takes a partial zero date", async () => {
    const { source, deleter, target } = setup("dup", undefined, [
      ["1", "2024-03-01 01:00:00.000000"],
      ["1", "2024-03-01 01:00:00.000000"],
      ["1", "2024-03-01 01:00:00.000000"],
      ["2", "2024-03-01 02:00:00.000000"],
      ["3", "2024-03-01 03:00:00.000000"],
      ["4", "2024-03-01 04:00:00.000000"],
      ["5", "2024-03-00 04:00:00.000000"],
    ]);
    const day = target("2024-03-01", { kind: "time" });
    const chunks = await deleter.planChunks(day, 2);
    expect(shapes(chunks)).toEqual([
      { first: "2024-03-01 01:00:00.000000", last: "2024-03-01 01:00:00.000000", rows: 3 },
      { first: "2024-03-01 02:00:00.000000", last: "2024-03-01 02:00:00.000000", rows: 1 },
      { first: "2024-03-01 03:00:00.000000", last: "2024-03-01 04:00:00.000000", rows: 2 },
    ]);
    // One duplicate gone: same instant, fewer rows. The chunk is refused whole.
    source.deleteRows("dup", (row) => row[0] === "1");
    source.insertRows("dup", [
      ["1", "2024-03-01 01:00:00.000000"],
      ["1", "2024-03-01 01:00:00.000000"],
    ]);
    const [triple] = chunks;
    if (!triple) throw new Error("no chunk");
    expect(await deleter.deleteChunk(day, triple, none)).toMatchObject({ kind: "changed", rows: 2 });
    for (const chunk of chunks.slice(1)) await deleter.deleteChunk(day, chunk, none);
    expect(ids(source, "dup").sort()).toEqual(["1", "1", "5"]);
  });

  it("takes a whole-day chunk only when the day holds no other row", async () => {
    const { source, deleter, target } = big();
    const day = target("2024-01-01", unsignedKey);
    const [first] = await deleter.planChunks(day, 3);
    if (!first) throw new Error("no chunk");
    expect(await deleter.deleteChunk(day, first, none, { wholeDay: true })).toMatchObject({
      kind: "changed",
      rows: 4,
    });
    expect(ids(source, "big")).toHaveLength(6);
  });

  it("refuses a chunk that is referenced, or whose table gained a key or trigger", async () => {
    const { source, deleter, target } = big();
    const day = target("2024-01-01", unsignedKey);
    const key: ReferencingKey = {
      constraint: "fk_child",
      childSchema: "db",
      childTable: "child",
      childColumns: ["big_id"],
      parentColumns: ["id"],
      onDelete: "RESTRICT",
      selfReferencing: false,
    };
    const [first] = await deleter.planChunks(day, 3);
    if (!first) throw new Error("no chunk");

    deleter.setSideEffects("big", { referencingKeys: [], deleteTriggers: ["audit"] });
    expect(await deleter.deleteChunk(day, first, none)).toEqual({
      kind: "side-effects-added",
      added: { referencingKeys: [], deleteTriggers: ["audit"] },
    });

    deleter.setSideEffects("big", { referencingKeys: [key], deleteTriggers: [] });
    deleter.setReferences("fk_child", ["18446744073709551611", "18446744073709551613", "7"]);
    const effects = await deleter.sideEffects("big");
    expect(await deleter.countReferences(day, effects.referencingKeys)).toEqual([{ key, rows: 2 }]);
    expect(await deleter.deleteChunk(day, first, effects)).toEqual({
      kind: "referenced",
      references: [{ key, rows: 1 }],
    });
    expect(ids(source, "big")).toHaveLength(6);
  });

  it("describes the statement an operator would run, values written in", () => {
    const { deleter } = big();
    const range = { column: "id", unsigned: true, min: "10", max: "20" };
    expect(deleter.describeDelete({ table: "big", column: "at", day: "2024-01-01" }, range)).toBe(
      "DELETE FROM `big` WHERE `at` >= '2024-01-01 00:00:00' AND `at` < '2024-01-02 00:00:00' AND `id` BETWEEN 10 AND 20",
    );
  });
});
