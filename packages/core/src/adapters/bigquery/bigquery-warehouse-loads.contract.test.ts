import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Destination } from "../../model/destination";
import type { Row } from "../../model/table-schema";
import {
  destination,
  fixture,
  ordersTableWithOrderOn,
  standIn,
  warehouse,
} from "../../testing/bigquery-stand-in-fixture";
import { batchesOf, dayOf, order, ordersSchema } from "../../testing/orders-fixture";
import { bigQueryFields } from "./bigquery-types";
import { everyTypeRows, everyTypeSchema } from "./testdata/every-type";
import { STAND_IN_LOCATION, STAND_IN_PROJECT, STAND_IN_TOKEN } from "./testing/stand-in-client";

// Loading days through the local REST stand-in: what the client library
// uploads and how it waits for the job. The adapter's other requests:
// bigquery-warehouse.contract.test.ts; what loads do to the days: the shared
// warehouse suite (bigquery-warehouse-suite.contract.test.ts).

const golden = readFileSync(new URL("./testdata/ndjson-golden.ndjson", import.meta.url), "utf8");
const PROJECT = STAND_IN_PROJECT;
const LOCATION = STAND_IN_LOCATION;

/** How many times the adapter has read `target`'s table metadata. */
function tableReads(target: Destination): number {
  return standIn.requests.filter((r) => r.method === "GET" && r.path.endsWith(`/tables/${target.table}`))
    .length;
}

beforeAll(fixture.open);
afterAll(fixture.close);
beforeEach(fixture.clearRecords);

describe("BigQuery warehouse adapter against the local REST stand-in (contract)", () => {
  it("creates the dataset in its location and a table partitioned by DAY on the filter column", async () => {
    const target = destination();
    await warehouse.ensureTable(target, everyTypeSchema, "created_at");

    const posts = standIn.requests.filter((r) => r.method === "POST");
    expect(posts.map((r) => r.path)).toEqual([
      `/bigquery/v2/projects/${PROJECT}/datasets/archive/tables`,
      `/bigquery/v2/projects/${PROJECT}/datasets`,
      `/bigquery/v2/projects/${PROJECT}/datasets/archive/tables`,
    ]);
    expect(posts[1]?.body).toMatchObject({ datasetReference: { datasetId: "archive" }, location: LOCATION });
    expect(posts[2]?.body).toMatchObject({
      tableReference: { projectId: PROJECT, datasetId: "archive", tableId: target.table },
      schema: { fields: bigQueryFields("every_type", everyTypeSchema.columns) },
      timePartitioning: { type: "DAY", field: "created_at" },
    });
    expect(standIn.requests.every((r) => r.authorization === `Bearer ${STAND_IN_TOKEN}`)).toBe(true);

    standIn.requests.length = 0;
    await warehouse.ensureTable(target, everyTypeSchema, "created_at");
    expect(standIn.requests.map((r) => r.method)).toEqual(["GET"]);
  });

  it("loads a day into the decorated partition with WRITE_TRUNCATE, streaming the rows as NDJSON", async () => {
    const target = destination();
    await warehouse.ensureTable(target, everyTypeSchema, "created_at");
    const readsAfterEnsure = tableReads(target);
    const result = await warehouse.replaceDay(
      dayOf(target, "2024-01-31"),
      everyTypeSchema,
      batchesOf(everyTypeRows, 1),
    );

    expect(result).toEqual({ rowsWritten: 2 });
    // The fields ensureTable prepared serve the load: no second read of the table.
    expect(tableReads(target)).toBe(readsAfterEnsure);
    const [upload] = standIn.uploads;
    const uploadRequest = standIn.requests.find((r) => r.path.startsWith("/upload/"));
    expect(uploadRequest).toMatchObject({
      method: "POST",
      path: `/upload/bigquery/v2/projects/${PROJECT}/jobs`,
      query: { uploadType: "multipart" },
    });
    expect(upload?.metadata.jobReference).toMatchObject({ projectId: PROJECT, location: LOCATION });
    expect(String(upload?.metadata.jobReference?.jobId)).toMatch(/^archiver_every_type_\d+_20240131_/);
    expect(upload?.metadata.configuration?.load).toEqual({
      destinationTable: { projectId: PROJECT, datasetId: "archive", tableId: `${target.table}$20240131` },
      sourceFormat: "NEWLINE_DELIMITED_JSON",
      writeDisposition: "WRITE_TRUNCATE",
      createDisposition: "CREATE_NEVER",
      schema: { fields: bigQueryFields("every_type", everyTypeSchema.columns) },
      schemaUpdateOptions: ["ALLOW_FIELD_ADDITION"],
      timePartitioning: { type: "DAY", field: "created_at" },
      maxBadRecords: 0,
      ignoreUnknownValues: false,
      encoding: "UTF-8",
    });
    // The body lines are the source rows, one per line, exactly as the golden file.
    expect(upload?.text).toBe(golden);
    expect(upload?.complete).toBe(true);
    // The adapter waited for DONE: it polled the job after the upload answered RUNNING.
    const jobId = String(upload?.metadata.jobReference?.jobId);
    expect(standIn.requests.some((r) => r.method === "GET" && r.path.endsWith(`/jobs/${jobId}`))).toBe(true);
  });
  it("streams many batches through one upload", async () => {
    const target = destination();
    const schema = ordersSchema();
    const rows = Array.from({ length: 30_000 }, (_, i) =>
      order(String(i + 1), "2024-04-01", `10:00:${String(i % 60).padStart(2, "0")}`),
    );
    await warehouse.ensureTable(target, schema, "created_at");
    expect(await warehouse.replaceDay(dayOf(target, "2024-04-01"), schema, batchesOf(rows, 1_000))).toEqual({
      rowsWritten: 30_000,
    });
    expect(standIn.uploads).toHaveLength(1);
    expect(standIn.uploads[0]?.text.split("\n")).toHaveLength(30_001);
  });

  it("leaves the upload without its closing boundary, so no job starts, when the source fails mid-stream", async () => {
    const { target, schema } = await ordersTableWithOrderOn("2024-05-01");

    async function* failing(): AsyncIterable<readonly Row[]> {
      yield [order("7", "2024-05-01")];
      yield [order("8", "2024-05-01")];
      throw new Error("connection lost");
    }
    await expect(warehouse.replaceDay(dayOf(target, "2024-05-01"), schema, failing())).rejects.toThrow(
      "connection lost",
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(standIn.uploads).toHaveLength(1);
    expect(standIn.uploads.every((u) => !u.complete)).toBe(true);
    expect(standIn.requests.filter((r) => r.path.includes("/jobs/"))).toHaveLength(0);
  });
});
