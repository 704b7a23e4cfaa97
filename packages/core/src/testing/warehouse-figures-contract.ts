import { expect, it } from "vitest";
import type { Destination } from "../model/destination";
import type { TableSchema } from "../model/table-schema";
import type { WarehouseDay } from "../model/warehouse-day";
import type { Warehouse } from "../ports/warehouse";
import { batchesOf, dayOf } from "./orders-fixture";
import { uniqueName } from "./test-services";
import { keyedRows, keyedSchema, sumOf } from "./warehouse-contract-fixtures";

const DAY = "2024-05-06";

/**
 * The figures and keys cleanup relies on (`dayFigures`, `daysFigures`,
 * `dayKeys`, `countRows`), run inside describeWarehouseContract: exact past 2^64, signed
 * keys, neighbouring days apart, and nothing for what does not exist.
 */
export function figuresContract(w: () => Warehouse, table: (prefix: string) => Destination): void {
  it("counts a day with exact key figures, past 2^64 for BIGINT UNSIGNED keys", async () => {
    const destination = table("figures");
    const schema = keyedSchema();
    await w().ensureTable(destination, schema, "created_at");
    const ids = ["18446744073709551615", "18446744073709551614", "1", "9007199254740993"];
    await w().replaceDay(dayOf(destination, DAY), schema, batchesOf(keyedRows(DAY, ids)));
    await w().replaceDay(dayOf(destination, "2024-05-07"), schema, batchesOf(keyedRows("2024-05-07", [9])));
    expect(await w().dayFigures(dayOf(destination, DAY), "id")).toEqual({
      rows: 4,
      key: { column: "id", count: 4, sum: sumOf(ids), min: "1", max: "18446744073709551615" },
    });
    expect(await w().dayFigures(dayOf(destination, DAY))).toEqual({
      rows: 4,
    });
    const empty = await w().dayFigures(dayOf(destination, "2024-05-01"), "id");
    expect(empty.rows).toBe(0);
    expect(empty.key).toMatchObject({ column: "id", count: 0, sum: "0" });
    expect(await w().countRows(destination)).toBe(5);
  });

  it("counts several days in one query, each exactly as dayFigures counts it alone", async () => {
    const destination = table("days_figures");
    const schema = keyedSchema();
    await w().ensureTable(destination, schema, "created_at");
    const edges = { times: ["00:00:00", "23:59:59.999999"] };
    const ids = ["18446744073709551615", "1", "9007199254740993"];
    await w().replaceDay(dayOf(destination, DAY), schema, batchesOf(keyedRows(DAY, ids)));
    await w().replaceDay(
      dayOf(destination, "2024-05-07"),
      schema,
      batchesOf(keyedRows("2024-05-07", [7, 8], edges)),
    );
    await w().replaceDay(
      dayOf(destination, "2024-05-09"),
      schema,
      batchesOf(keyedRows("2024-05-09", [9], edges)),
    );
    const asked = ["2024-05-07", "2024-05-05", DAY];
    const at = { destination, filterColumn: "created_at", days: asked };

    const keyed = await w().daysFigures(at, "id");
    const plain = await w().daysFigures(at);

    expect([...keyed.keys()].sort()).toEqual([...asked].sort());
    for (const day of asked) {
      expect(keyed.get(day)).toEqual(await w().dayFigures(dayOf(destination, day), "id"));
      expect(plain.get(day)).toEqual(await w().dayFigures(dayOf(destination, day)));
    }
    expect(keyed.get(DAY)?.key).toMatchObject({ count: 3, sum: sumOf(ids), max: "18446744073709551615" });
    expect(keyed.get("2024-05-07")?.rows).toBe(2);
    expect(keyed.get("2024-05-05")?.rows).toBe(0);
    const absent = await w().daysFigures({ ...at, destination: table("days_absent") }, "id");
    expect([...absent.values()].map((figures) => figures.rows)).toEqual([0, 0, 0]);
    expect((await w().daysFigures({ ...at, days: [] }, "id")).size).toBe(0);
  });

  it("lists the keys a replaced day holds now, exactly, and none of the neighbouring days'", async () => {
    const destination = table("keys");
    const schema = keyedSchema();
    await w().ensureTable(destination, schema, "created_at");
    const edges = { times: ["00:00:00", "23:59:59.999999"] };
    await w().replaceDay(
      dayOf(destination, "2024-05-05"),
      schema,
      batchesOf(keyedRows("2024-05-05", [5, 6], edges)),
    );
    await w().replaceDay(
      dayOf(destination, "2024-05-07"),
      schema,
      batchesOf(keyedRows("2024-05-07", [7, 8], edges)),
    );
    await w().replaceDay(dayOf(destination, DAY), schema, batchesOf(keyedRows(DAY, [1, 2, 3])));
    const ids = ["1", "9007199254740993", "18446744073709551614", "18446744073709551615"];
    const times = ["00:00:00", "12:00:00", "12:00:01", "23:59:59.999999"];
    await w().replaceDay(dayOf(destination, DAY), schema, batchesOf(keyedRows(DAY, ids, { times })));
    expect(await keysOf(w(), dayOf(destination, DAY))).toEqual(ids);
    expect(await keysOf(w(), dayOf(destination, "2024-05-05"))).toEqual(["5", "6"]);
    expect(await keysOf(w(), dayOf(destination, "2024-05-07"))).toEqual(["7", "8"]);
  });

  it("lists a day's keys in ascending order of value, in pages of at most pageKeys", async () => {
    const destination = table("key_pages");
    const schema = keyedSchema();
    await w().ensureTable(destination, schema, "created_at");
    // Written out of order; as text "9..." would sort after "18...".
    const ids = ["18446744073709551615", "9007199254740993", "2", "18446744073709551614", "10"];
    await w().replaceDay(dayOf(destination, DAY), schema, batchesOf(keyedRows(DAY, ids)));
    expect(await pagesOf(w(), dayOf(destination, DAY), 2)).toEqual([
      ["2", "10"],
      ["9007199254740993", "18446744073709551614"],
      ["18446744073709551615"],
    ]);
    expect(await pagesOf(w(), dayOf(destination, DAY), 5)).toEqual([[...byValue(ids)]]);
  });

  it("lists signed keys exactly, negative ones included", async () => {
    const destination = table("signed_keys");
    const schema = signedKeySchema();
    await w().ensureTable(destination, schema, "created_at");
    const ids = ["-9223372036854775808", "-1", "0", "9223372036854775807"];
    await w().replaceDay(dayOf(destination, DAY), schema, batchesOf(keyedRows(DAY, ids)));
    expect(await pagesOf(w(), dayOf(destination, DAY), 3)).toEqual([ids.slice(0, 3), ids.slice(3)]);
  });

  it("lists no keys for a day without rows, nor for a table or dataset that does not exist", async () => {
    const destination = table("no_keys");
    const schema = keyedSchema();
    await w().ensureTable(destination, schema, "created_at");
    expect(await pagesOf(w(), dayOf(destination, DAY), 10)).toEqual([]);
    await w().replaceDay(dayOf(destination, DAY), schema, batchesOf(keyedRows(DAY, [1])));
    expect(await pagesOf(w(), dayOf(destination, "2024-05-07"), 10)).toEqual([]);
    const absent = table("absent");
    expect(await pagesOf(w(), dayOf(absent, DAY), 10)).toEqual([]);
    const nowhere = { dataset: uniqueName("contract_absent"), table: uniqueName("orders") };
    expect(await pagesOf(w(), dayOf(nowhere, DAY), 10)).toEqual([]);
    expect(await w().countRows(absent)).toBe(0);
    expect(await w().countRows(nowhere)).toBe(0);
  });
}

/** `keyedSchema` with a signed BIGINT key. */
function signedKeySchema(): TableSchema {
  const schema = keyedSchema();
  return {
    ...schema,
    columns: schema.columns.map((column) =>
      column.name === "id"
        ? { ...column, dataType: "bigint", columnType: "bigint", logicalType: { kind: "int64" } }
        : column,
    ),
  };
}

/** Every page dayKeys lists of the day's `id` keys, `pageKeys` at most each. */
async function pagesOf(warehouse: Warehouse, at: WarehouseDay, pageKeys: number): Promise<string[][]> {
  const pages: string[][] = [];
  for await (const page of warehouse.dayKeys(at, "id", pageKeys)) pages.push([...page]);
  return pages;
}

/** The day's `id` keys as dayKeys lists them, pages joined. */
async function keysOf(warehouse: Warehouse, at: WarehouseDay): Promise<string[]> {
  return (await pagesOf(warehouse, at, 2)).flat();
}

/** Integer texts in ascending numeric order. */
function byValue(keys: readonly string[]): string[] {
  return [...keys].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
}
