import { beforeEach, describe, expect, it } from "vitest";
import { ConfigError, RefusalError, TransientError } from "../../errors";
import type { Warehouse } from "../../ports/warehouse";
import { batchesOf, dayOf, order, ordersSchema } from "../../testing/orders-fixture";
import { bigQueryFields } from "./bigquery-types";
import { createBigQueryWarehouse } from "./bigquery-warehouse";
import { apiError, type BigQueryDouble, bigQueryDouble } from "./testing/client-double";
import { pagesOf } from "./testing/pages-of";

// The warehouse adapter's behaviour on a double of the BigQuery client: which
// calls it makes, in what order, and what it makes of the answers. What the
// real client sends for those calls: the REST contract tests; the adapter as a
// whole warehouse: the shared suite on the in-memory stand-in.

const target = { dataset: "archive", table: "orders" };
const path = "acme.archive.orders";
let bq: BigQueryDouble;
let warehouse: Warehouse;

/** The double holds `orders`, partitioned by DAY on `partitionedOn`, with the fields of `ordersSchema(id)`. */
function holdOrders(id = ordersSchema(), partitionedOn = "created_at") {
  bq.datasets.add("acme.archive");
  bq.tables.set(path, {
    schema: { fields: bigQueryFields("orders", id.columns).map((f) => ({ ...f })) },
    timePartitioning: { type: "DAY", field: partitionedOn },
  });
}

beforeEach(() => {
  bq = bigQueryDouble();
  warehouse = createBigQueryWarehouse({ project: "acme", location: "EU", client: bq.client });
});

describe("BigQuery warehouse adapter: tables", () => {
  it("creates the dataset in its location when the table's creation finds none, then the partitioned table", async () => {
    await warehouse.ensureTable(target, ordersSchema(), "created_at");
    expect(bq.calls.map((c) => `${c.method} ${c.target}`)).toEqual([
      `getMetadata ${path}`,
      `createTable ${path}`,
      "createDataset acme.archive",
      `createTable ${path}`,
      `getMetadata ${path}`,
    ]);
    expect(bq.callsOf("createTable")[1]?.argument).toMatchObject({
      schema: { fields: bigQueryFields("orders", ordersSchema().columns) },
      timePartitioning: { type: "DAY", field: "created_at" },
    });
    bq.calls.length = 0;
    await warehouse.ensureTable(target, ordersSchema(), "created_at");
    expect(bq.calls.map((c) => c.method)).toEqual(["getMetadata"]);
  });

  it("goes on when the dataset or the table was created meanwhile", async () => {
    bq.fail("createTable", apiError(404, "notFound"));
    bq.fail("createDataset", apiError(409, "duplicate"));
    bq.datasets.add("acme.archive");
    await warehouse.ensureTable(target, ordersSchema(), "created_at");
    expect(bq.tables.has(path)).toBe(true);
    bq.fail("getMetadata", apiError(404, "notFound"));
    await warehouse.ensureTable(target, ordersSchema(), "created_at");
    expect(bq.callsOf("createTable").at(-1)?.target).toBe(path);
  });

  it("stops with a clear message on an incompatible schema change, before any upload", async () => {
    holdOrders(ordersSchema({ kind: "int64" }));
    const changed = ordersSchema({ kind: "uint64" });
    await expect(warehouse.ensureTable(target, changed, "created_at")).rejects.toThrow(
      /id is INTEGER in BigQuery but the source now needs NUMERIC/,
    );
    await expect(
      warehouse.replaceDay(dayOf(target, "2024-01-01"), changed, batchesOf([order("1", "2024-01-01")])),
    ).rejects.toBeInstanceOf(RefusalError);
    expect(bq.uploads).toHaveLength(0);
    expect(bq.callsOf("setMetadata")).toHaveLength(0);
  });

  it("refuses a table that is not partitioned by day on the filter column", async () => {
    holdOrders();
    await expect(warehouse.ensureTable(target, ordersSchema(), "id")).rejects.toThrow(
      /must be partitioned by DAY on id \(found: DAY on created_at\)/,
    );
  });

  it("tells whether a table exists without creating one, and maps a refusal to a ConfigError", async () => {
    expect(await warehouse.hasTable(target)).toBe(false);
    holdOrders();
    expect(await warehouse.hasTable(target)).toBe(true);
    bq.fail("getMetadata", apiError(403, "accessDenied"));
    await expect(warehouse.hasTable(target)).rejects.toBeInstanceOf(ConfigError);
    expect(bq.callsOf("createTable")).toHaveLength(0);
  });
});

describe("BigQuery warehouse adapter: figures", () => {
  it("counts 0 for a table or a day that does not exist", async () => {
    bq.fail("query", apiError(404, "notFound"));
    expect(await warehouse.countRows({ dataset: "nowhere", table: "nothing" })).toBe(0);
    bq.fail("query", apiError(404, "notFound"));
    expect(await warehouse.dayFigures(dayOf(target, "2024-01-01"), "id")).toEqual({
      rows: 0,
      key: { column: "id", count: 0, sum: "0", min: "", max: "" },
    });
    bq.fail("query", apiError(404, "notFound"));
    expect(await pagesOf(warehouse.dayKeys(dayOf(target, "2024-01-01"), "id", 10))).toEqual([]);
  });

  it("reads the figures, the keys and the count as the queries print them", async () => {
    bq.answer("query", [
      [
        {
          row_count: "2",
          key_count: "2",
          key_sum: "18446744073709551616",
          key_min: "1",
          key_max: "18446744073709551615",
        },
      ],
    ]);
    expect(await warehouse.dayFigures(dayOf(target, "2024-01-31"), "id")).toEqual({
      rows: 2,
      key: { column: "id", count: 2, sum: "18446744073709551616", min: "1", max: "18446744073709551615" },
    });
    bq.answer("query", [[{ k: "7" }, { k: null }, { k: "18446744073709551615" }]]);
    expect(await pagesOf(warehouse.dayKeys(dayOf(target, "2024-01-31"), "id", 10))).toEqual([
      ["7", "18446744073709551615"],
    ]);
    bq.answer("query", [[{ row_count: "3" }]]);
    expect(await warehouse.countRows(target)).toBe(3);
    expect(bq.callsOf("query")[2]?.argument).toMatchObject({
      query: `SELECT CAST(COUNT(*) AS STRING) AS row_count FROM \`${path}\``,
      location: "EU",
    });
  });

  it("maps a failing query: transient for BigQuery's backend, a ConfigError for a refusal", async () => {
    bq.fail("query", apiError(503, "backendError"));
    await expect(warehouse.dayFigures(dayOf(target, "2024-01-31"))).rejects.toBeInstanceOf(TransientError);
    bq.fail("query", apiError(403, "accessDenied"));
    const refused = warehouse.countRows(target);
    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(refused).rejects.toThrow(/roles\/bigquery\.dataEditor on dataset acme\.archive/);
  });
});
