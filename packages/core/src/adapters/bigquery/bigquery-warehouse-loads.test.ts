import { beforeEach, describe, expect, it } from "vitest";
import { RefusalError, TransientError } from "../../errors";
import type { Row } from "../../model/table-schema";
import type { Warehouse } from "../../ports/warehouse";
import { copyRecordOf } from "../../testing/day-record-contract";
import { batchesOf, dayOf, order, ordersSchema } from "../../testing/orders-fixture";
import { bigQueryFields } from "./bigquery-types";
import { createBigQueryWarehouse } from "./bigquery-warehouse";
import { loadJobMetadata } from "./load-job";
import { apiError, type BigQueryDouble, bigQueryDouble } from "./testing/client-double";

// replaceDay and the durable day record on a double of the BigQuery client:
// one load job per day into its partition, the checks before it, and the
// record entry after it. See bigquery-warehouse.test.ts for the tables.

const target = { dataset: "archive", table: "orders" };
const path = "acme.archive.orders";
const day = dayOf(target, "2024-01-31");
let bq: BigQueryDouble;
let warehouse: Warehouse;

beforeEach(async () => {
  bq = bigQueryDouble();
  warehouse = createBigQueryWarehouse({ project: "acme", location: "EU", client: bq.client });
  bq.datasets.add("acme.archive");
  await warehouse.ensureTable(target, ordersSchema(), "created_at");
  bq.calls.length = 0;
});

describe("BigQuery warehouse adapter: replaceDay", () => {
  it("loads the day into its partition with one job, after reading what the day holds", async () => {
    const rows = [order("1", "2024-01-31"), order("2", "2024-01-31")];
    expect(await warehouse.replaceDay(day, ordersSchema(), batchesOf(rows, 1))).toEqual({ rowsWritten: 2 });
    expect(bq.calls.map((c) => `${c.method} ${c.target}`)).toEqual(["query ", `upload ${path}$20240131`]);
    const fields = bigQueryFields("orders", ordersSchema().columns);
    expect(bq.uploads[0]?.metadata).toEqual(
      loadJobMetadata({ table: "orders", fields, filterColumn: "created_at", day: "2024-01-31" }),
    );
    expect(bq.uploads[0]?.text).toBe(
      '{"id":"1","created_at":"2024-01-31 12:00:00"}\n{"id":"2","created_at":"2024-01-31 12:00:00"}\n',
    );
  });

  it("refuses to empty a copied day when the source has no rows for it, and uploads nothing", async () => {
    bq.answer("query", [[{ row_count: "1" }]]);
    const late = warehouse.replaceDay(day, ordersSchema(), batchesOf([]));
    await expect(late).rejects.toBeInstanceOf(RefusalError);
    await expect(late).rejects.toThrow(/source has no rows for the day but the warehouse holds 1/);
    expect(bq.uploads).toHaveLength(0);
    expect(await warehouse.replaceDay(dayOf(target, "2024-02-01"), ordersSchema(), batchesOf([]))).toEqual({
      rowsWritten: 0,
    });
    expect(bq.uploads).toHaveLength(0);
  });

  it("refuses to shrink a copied day, destroying the upload so no job starts", async () => {
    bq.answer("query", [[{ row_count: "3" }]]);
    const rows = [order("1", "2024-01-31"), order("2", "2024-01-31")];
    await expect(warehouse.replaceDay(day, ordersSchema(), batchesOf(rows, 1))).rejects.toThrow(
      /source has 2 rows for the day but the warehouse holds 3; refusing to shrink/,
    );
    expect(bq.uploads.map((u) => ({ ended: u.ended, destroyed: u.destroyed }))).toEqual([
      { ended: false, destroyed: true },
    ]);
  });

  it("destroys the upload, never ends it, when the source fails mid-stream", async () => {
    async function* failing(): AsyncIterable<readonly Row[]> {
      yield [order("7", "2024-01-31")];
      throw new Error("connection lost");
    }
    await expect(warehouse.replaceDay(day, ordersSchema(), failing())).rejects.toThrow("connection lost");
    expect(bq.uploads.map((u) => ({ ended: u.ended, destroyed: u.destroyed }))).toEqual([
      { ended: false, destroyed: true },
    ]);
  });

  it("maps a failed job, and reads the table again on the next attempt", async () => {
    const rows = batchesOf([order("1", "2024-01-31")]);
    bq.fail(
      "upload",
      Object.assign(new Error("Could not convert"), {
        errors: [{ reason: "invalid", message: "Could not convert value. Field: id" }],
      }),
    );
    await expect(warehouse.replaceDay(day, ordersSchema(), rows)).rejects.toBeInstanceOf(RefusalError);
    bq.fail("upload", apiError(undefined, "rateLimitExceeded"));
    await expect(
      warehouse.replaceDay(day, ordersSchema(), batchesOf([order("1", "2024-01-31")])),
    ).rejects.toBeInstanceOf(TransientError);
    // The first failure dropped the prepared fields: the second attempt read the table first.
    expect(bq.callsOf("getMetadata")).toHaveLength(1);
  });

  it("refuses a job that reports no output row count", async () => {
    bq.answer("upload", { id: "job_1", metadata: { statistics: {} } });
    await expect(
      warehouse.replaceDay(day, ordersSchema(), batchesOf([order("1", "2024-01-31")])),
    ).rejects.toThrow(/job job_1 finished without an output row count/);
  });
});

describe("BigQuery warehouse adapter: the durable day record", () => {
  const archive = { dataset: "archive" };

  it("records after the load, with what it wrote, in a record table created once per dataset", async () => {
    const written: number[] = [];
    await warehouse.replaceDay(
      day,
      ordersSchema(),
      batchesOf([order("1", "2024-01-31")]),
      "id",
      async (w) => {
        written.push(w.rowsWritten);
        return {
          kind: "copied",
          table: "orders",
          copy: copyRecordOf("2024-01-31", "2024-02-01T00:00:00.000Z", 1),
        };
      },
    );
    await warehouse.recordDay(archive, {
      kind: "copied",
      table: "orders",
      copy: copyRecordOf("2024-01-30", "x"),
    });
    expect(written).toEqual([1]);
    expect(bq.calls.map((c) => `${c.method} ${c.target}`)).toEqual([
      "query ",
      `upload ${path}$20240131`,
      "createTable acme.archive._archiver_days",
      "query ",
      "query ",
    ]);
    expect(bq.callsOf("query")[1]?.argument).toMatchObject({
      query:
        "INSERT INTO `acme.archive._archiver_days` (source_table, day, kind, entry, recorded_at) VALUES (@source_table, @day, @kind, @entry, CURRENT_TIMESTAMP())",
      params: { source_table: "orders", day: "2024-01-31", kind: "copied" },
    });
  });

  it("leaves the day replaced but unrecorded when the entry cannot be made", async () => {
    const failing = warehouse.replaceDay(
      day,
      ordersSchema(),
      batchesOf([order("1", "2024-01-31")]),
      "id",
      () => Promise.reject(new RefusalError("figures differ")),
    );
    await expect(failing).rejects.toThrow("figures differ");
    expect(bq.uploads[0]?.ended).toBe(true);
    expect(bq.callsOf("createTable")).toHaveLength(0);
  });

  it("reads entries back, and nothing from a dataset without a record table", async () => {
    const copy = copyRecordOf("2024-01-31", "2024-02-01T00:00:00.000Z");
    bq.answer("query", [[{ kind: "copied", entry: JSON.stringify(copy) }]]);
    expect(await warehouse.dayRecord(archive, "orders", "2024-01-31")).toEqual({ copy });
    bq.answer("query", [[{ source_table: "orders" }, { source_table: "users" }]]);
    expect(await warehouse.recordedTables(archive)).toEqual(["orders", "users"]);
    for (let i = 0; i < 3; i++) bq.fail("query", apiError(404, "notFound"));
    expect(await warehouse.dayRecord(archive, "orders", "2024-01-31")).toEqual({});
    expect(await warehouse.recordedCopies(archive, "orders")).toEqual([]);
    expect(await warehouse.recordedTables(archive)).toEqual([]);
  });

  it("maps a failing entry: a rate limit is transient", async () => {
    bq.fail("query", apiError(403, "rateLimitExceeded"));
    await expect(
      warehouse.recordDay(archive, {
        kind: "copied",
        table: "orders",
        copy: copyRecordOf("2024-01-31", "x"),
      }),
    ).rejects.toBeInstanceOf(TransientError);
  });
});
