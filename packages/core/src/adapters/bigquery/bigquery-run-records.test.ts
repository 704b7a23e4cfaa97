import { beforeEach, describe, expect, it } from "vitest";
import { TransientError } from "../../errors";
import type { Warehouse } from "../../ports/warehouse";
import { runRecordOf } from "../../testing/run-record-contract";
import { createBigQueryWarehouse } from "./bigquery-warehouse";
import { apiError, type BigQueryDouble, bigQueryDouble } from "./testing/client-double";

// The run history on a double of the BigQuery client: how a run is written
// (what the per-table load-job quota depends on) and read.

const archive = { dataset: "archive" };
let bq: BigQueryDouble;
let warehouse: Warehouse;

beforeEach(() => {
  bq = bigQueryDouble();
  warehouse = createBigQueryWarehouse({ project: "acme", location: "EU", client: bq.client });
  bq.datasets.add("acme.archive");
});

describe("BigQuery warehouse adapter: run history", () => {
  it("appends a run with a DML INSERT (a query job), never a load job, creating the table once", async () => {
    const run = runRecordOf("orders", "2024-06-01T10:00:00.000Z", { policy: "orders" });
    await warehouse.recordRun(archive, run);
    await warehouse.recordRun(archive, { ...run, id: "second" });
    expect(bq.uploads).toHaveLength(0);
    expect(bq.calls.map((c) => `${c.method} ${c.target}`)).toEqual([
      "createTable acme.archive._archiver_runs",
      "query ",
      "query ",
    ]);
    const insert = bq.callsOf("query")[0]?.argument as { query: string; params: Record<string, string> };
    expect(insert.query).toMatch(/^INSERT INTO `acme\.archive\._archiver_runs` \(/);
    expect(insert.params).toMatchObject({
      run_id: run.id,
      source_table: "orders",
      mode: "cleanup",
      policy: "orders",
      result: "partial",
      refused: "1",
      rows: "1234",
    });
    expect(JSON.parse(insert.params.record ?? "")).toEqual(run);
  });

  it("reads runs back, and none from a dataset without a run table", async () => {
    const run = runRecordOf("orders", "2024-06-01T10:00:00.000Z");
    bq.answer("query", [[{ record: JSON.stringify(run) }]]);
    expect(await warehouse.runs(archive, { table: "orders", limit: 5 })).toEqual([run]);
    expect(bq.callsOf("query")[0]?.argument).toMatchObject({
      params: { source_table: "orders", limit: "5" },
    });
    for (let i = 0; i < 3; i++) bq.fail("query", apiError(404, "notFound"));
    expect(await warehouse.runs(archive)).toEqual([]);
  });

  it("maps a failing write: a rate limit is transient", async () => {
    bq.fail("query", apiError(403, "rateLimitExceeded"));
    await expect(
      warehouse.recordRun(archive, runRecordOf("orders", "2024-06-01T10:00:00.000Z")),
    ).rejects.toBeInstanceOf(TransientError);
  });
});
