import { describe, expect, it } from "vitest";
import { RefusalError } from "../../../errors";
import type { CopiedDayRecord } from "../../../model/copied-day-record";
import type { DayChunk } from "../../../model/day-chunks";
import type { LogicalType } from "../../../model/logical-type";
import type { TableSchema } from "../../../model/table-schema";
import { ordersSchema } from "../../../testing/orders-fixture";
import { chunkOutside, copyPlan, figuresOfChunks, keyColumnOf, recordedKeyRange } from "./plan-chunks";

const scope = { table: "orders", column: "created_at", day: "2024-01-01" };
const key = { column: "id", unsigned: true };
const byKey = { kind: "key", ...key } as const;
const byTime = { kind: "time" } as const;
const chunk = (first: string, last: string, rows: number, sum: string, fingerprint = "0") => ({
  first,
  last,
  rows,
  sum,
  fingerprint,
});

/** The orders table keyed by `id` of `keyType`, or with no primary key at all. */
function schema(keyType: LogicalType | undefined): TableSchema {
  const orders = ordersSchema(keyType ?? { kind: "string" });
  return keyType ? orders : { ...orders, primaryKey: [] };
}

describe("figuresOfChunks", () => {
  it("adds the chunks up to the day's figures, exactly beyond 2^64", () => {
    const figures = figuresOfChunks(scope, byKey, [
      chunk(
        "18446744073709551610",
        "18446744073709551612",
        3,
        "55340232221128654833",
        "36893488147419103230",
      ),
      chunk(
        "18446744073709551615",
        "18446744073709551615",
        1,
        "18446744073709551615",
        "18446744073709551615",
      ),
    ]);
    expect(figures).toEqual({
      rows: 4,
      fingerprint: "55340232221128654845",
      key: {
        column: "id",
        count: 4,
        sum: "73786976294838206448",
        min: "18446744073709551610",
        max: "18446744073709551615",
      },
    });
  });

  it("is an empty day for no chunks", () => {
    expect(figuresOfChunks(scope, byKey, [])).toEqual({
      rows: 0,
      fingerprint: "0",
      key: { column: "id", count: 0, sum: "0", min: "", max: "" },
    });
  });

  it("rejects overlapping or unordered chunks", () => {
    expect(() => figuresOfChunks(scope, byKey, [chunk("1", "5", 5, "15"), chunk("5", "6", 2, "11")])).toThrow(
      /out of order/,
    );
    expect(() => figuresOfChunks(scope, byKey, [chunk("3", "1", 2, "4")])).toThrow(/out of order/);
    // Keys compare as integers, not as text: 9 comes before 10.
    expect(() =>
      figuresOfChunks(scope, byKey, [chunk("1", "9", 9, "45"), chunk("10", "12", 3, "33")]),
    ).not.toThrow();
  });

  it("adds time chunks up to rows and fingerprint, without key figures, in filter-value order", () => {
    const time = (first: string, last: string, rows: number, fingerprint: string) => ({
      first,
      last,
      rows,
      fingerprint,
    });
    const chunks = [
      time("2024-01-01 00:00:00", "2024-01-01 09:59:59", 3, "100"),
      time("2024-01-01 10:00:00", "2024-01-01 23:00:00", 2, "18446744073709551615"),
    ];
    expect(figuresOfChunks(scope, byTime, chunks)).toEqual({ rows: 5, fingerprint: "18446744073709551715" });
    expect(() => figuresOfChunks(scope, byTime, [...chunks].reverse())).toThrow(/out of order/);
  });
});

describe("keyColumnOf and recordedKeyRange", () => {
  it("binds unsigned keys as UNSIGNED and signed ones as SIGNED", () => {
    expect(keyColumnOf(schema({ kind: "uint64" }))).toEqual({ column: "id", unsigned: true });
    expect(keyColumnOf(schema({ kind: "int64" }))).toEqual({ column: "id", unsigned: false });
    expect(keyColumnOf(schema({ kind: "int32", unsigned: true, bits: 32 }))).toEqual({
      column: "id",
      unsigned: true,
    });
    expect(keyColumnOf(schema(undefined))).toBeUndefined();
  });

  it("never lets a keyed table fall back to counting when its figures lack the key", () => {
    expect(() => recordedKeyRange(schema({ kind: "uint64" }), { rows: 3 })).toThrow(RefusalError);
    expect(recordedKeyRange(schema(undefined), { rows: 3 })).toBeUndefined();
  });
});

describe("chunkOutside", () => {
  const scope = { table: "orders", column: "created_at", day: "2024-01-01" };
  const chunk = (first: string, last: string, rows: number, sum: string) => ({
    first,
    last,
    rows,
    sum,
    fingerprint: "0",
  });

  it("stops a plan that leaves the recorded key range", () => {
    const range = { column: "id", unsigned: true, min: "10", max: "20" };
    expect(chunkOutside(scope, range, [chunk("10", "20", 11, "165")])).toBeUndefined();
    expect(chunkOutside(scope, range, [chunk("9", "20", 12, "174")])).toMatchObject({ refusal: "changed" });
    expect(chunkOutside(scope, range, [chunk("10", "21", 12, "186")])?.reason).toMatch(
      /chunk 10\.\.21 leaves the recorded key range 10\.\.20/,
    );
  });
});

describe("copyPlan", () => {
  const target = { scope, schema: schema({ kind: "uint64" }), by: byKey };
  const recorded = [
    { first: "10", last: "19", rows: 4, fingerprint: "40" },
    { first: "20", last: "29", rows: 4, fingerprint: "80" },
    { first: "30", last: "33", rows: 2, fingerprint: "60" },
  ];
  const record = (chunks = recorded, fingerprint = "180"): CopiedDayRecord => ({
    day: scope.day,
    destination: "orders",
    filterColumn: "created_at",
    figures: { rows: 10, fingerprint, key: { column: "id", count: 10, sum: "200", min: "10", max: "33" } },
    chunks,
    zeroDates: 0,
    bytes: 0,
    durationMs: 0,
    copiedAt: "2024-01-02T00:00:00.000Z",
  });

  it("plans the day from the copy's chunks, joined up to the chunk size, the last deleted standing for the day", () => {
    expect(copyPlan(target, record(), 4, false)?.chunks).toEqual([
      recorded[0],
      recorded[1],
      { ...recorded[2], wholeDay: true },
    ]);
    expect(copyPlan(target, record(), 9, false)?.chunks).toEqual([
      { first: "10", last: "29", rows: 8, fingerprint: "120" },
      { ...recorded[2], wholeDay: true },
    ]);
    // Newest first (a self-referencing key): the oldest chunk goes last and stands for the day.
    expect(copyPlan(target, record(), 4, true)?.chunks).toEqual([
      recorded[2],
      recorded[1],
      { ...recorded[0], wholeDay: true },
    ]);
  });

  it("plans nothing from chunks larger than the chunk size, or that do not add up to the copy", () => {
    expect(copyPlan(target, record(), 3, false)).toBeUndefined();
    expect(copyPlan(target, record(recorded, "181"), 4, false)).toBeUndefined();
    expect(copyPlan(target, record(recorded.slice(0, 2)), 4, false)).toBeUndefined();
    expect(
      copyPlan(target, record([{ ...recorded[0], first: "11" } as DayChunk, ...recorded.slice(1)]), 4, false),
    ).toBeUndefined();
    expect(copyPlan(target, { ...record(), filterColumn: "updated_at" }, 4, false)).toBeUndefined();
    // A table that has lost its key since the copy.
    expect(copyPlan({ ...target, by: byTime }, record(), 4, false)).toBeUndefined();
  });

  it("makes one chunk of a copy recorded without chunks that fits in one", () => {
    const { chunks: _none, ...old } = record();
    expect(copyPlan(target, old, 10, false)?.chunks).toEqual([
      { first: "10", last: "33", rows: 10, sum: "200", fingerprint: "180", wholeDay: true },
    ]);
    expect(copyPlan(target, old, 9, false)).toBeUndefined();
  });
});
