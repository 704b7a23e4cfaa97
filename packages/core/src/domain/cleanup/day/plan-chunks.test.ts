import { describe, expect, it } from "vitest";
import { RefusalError } from "../../../errors";
import type { LogicalType } from "../../../model/logical-type";
import type { TableSchema } from "../../../model/table-schema";
import { ordersSchema } from "../../../testing/orders-fixture";
import { chunkOutside, figuresOfChunks, keyColumnOf, recordedKeyRange } from "./plan-chunks";

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
