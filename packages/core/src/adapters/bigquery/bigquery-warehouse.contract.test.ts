import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Destination } from "../../domain/types/destination";
import type { Row } from "../../domain/types/table-schema";
import { VerificationError } from "../../errors";
import type { Warehouse } from "../../ports/warehouse";
import { batchesOf, dayOf, order, ordersSchema } from "../../testing/orders-fixture";
import { bigQueryFields } from "./bigquery-types";
import { everyTypeRows, everyTypeSchema } from "./testdata/every-type";
import type { BigQueryStandIn } from "./testing/rest-stand-in";
import {
  openStandInWarehouse,
  STAND_IN_LOCATION,
  STAND_IN_PROJECT,
  STAND_IN_TOKEN,
} from "./testing/stand-in-client";

// Contract tests of the warehouse adapter: the real @google-cloud/bigquery
// client talks to a local stand-in of the REST API, which records what the
// library sends. They prove the requests, not BigQuery's behaviour; the live
// suite (bigquery-warehouse.live.test.ts) does that against a real project.
// Error playback: bigquery-warehouse-errors.contract.test.ts; the shared
// warehouse suite: bigquery-warehouse-suite.contract.test.ts.

const golden = readFileSync(new URL("./testdata/ndjson-golden.ndjson", import.meta.url), "utf8");
const PROJECT = STAND_IN_PROJECT;
const LOCATION = STAND_IN_LOCATION;

let standIn: BigQueryStandIn;
let warehouse: Warehouse;
let close: () => Promise<void>;
let table = 0;

function destination(): Destination {
  table++;
  return { dataset: "archive", table: `every_type_${table}` };
}

/** How many times the adapter has read `target`'s table metadata. */
function tableReads(target: Destination): number {
  return standIn.requests.filter((r) => r.method === "GET" && r.path.endsWith(`/tables/${target.table}`))
    .length;
}

/** A new orders table in the stand-in, with order 1 copied on `day`. */
async function ordersTableWithOrderOn(day: string) {
  const target = destination();
  const schema = ordersSchema();
  await warehouse.ensureTable(target, schema, "created_at");
  await warehouse.replaceDay(dayOf(target, day), schema, batchesOf([order("1", day)]));
  return { target, schema };
}

beforeAll(async () => {
  ({ standIn, warehouse, close } = await openStandInWarehouse());
});

afterAll(async () => {
  await close();
});

beforeEach(() => {
  standIn.requests.length = 0;
  standIn.uploads.length = 0;
});

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
    expect(await warehouse.dayFigures(dayOf(target, "2024-01-31"), "id")).toEqual({
      rows: 2,
      key: { column: "id", count: 2, sum: "18446744073709551616", min: "1", max: "18446744073709551615" },
    });
  });

  it("replaces only the loaded day, and a second load of it leaves one copy", async () => {
    const { target, schema } = await ordersTableWithOrderOn("2024-03-01");
    await warehouse.replaceDay(dayOf(target, "2024-03-02"), schema, batchesOf([order("2", "2024-03-02")]));
    const again = [order("1", "2024-03-01"), order("3", "2024-03-01", "23:59:59")];
    expect(await warehouse.replaceDay(dayOf(target, "2024-03-01"), schema, batchesOf(again, 1))).toEqual({
      rowsWritten: 2,
    });

    expect(await warehouse.dayFigures(dayOf(target, "2024-03-01"))).toEqual({ rows: 2 });
    expect(await warehouse.dayFigures(dayOf(target, "2024-03-02"))).toEqual({ rows: 1 });
    expect(await warehouse.countRows(target)).toBe(3);
    const query = standIn.requests.find((r) => r.path.endsWith("/queries"));
    expect(query?.body).toMatchObject({
      location: LOCATION,
      useLegacySql: false,
      queryParameters: [
        {
          name: "day_start",
          parameterType: { type: "DATETIME" },
          parameterValue: { value: "2024-03-01 00:00:00" },
        },
        {
          name: "next_day_start",
          parameterType: { type: "DATETIME" },
          parameterValue: { value: "2024-03-02 00:00:00" },
        },
      ],
    });
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

  it("starts no job and keeps the day when the source fails mid-stream", async () => {
    const { target, schema } = await ordersTableWithOrderOn("2024-05-01");
    standIn.uploads.length = 0;
    const jobsBefore = standIn.requests.filter((r) => r.path.includes("/jobs/")).length;

    async function* failing(): AsyncIterable<readonly Row[]> {
      yield [order("7", "2024-05-01")];
      yield [order("8", "2024-05-01")];
      throw new Error("connection lost");
    }
    await expect(warehouse.replaceDay(dayOf(target, "2024-05-01"), schema, failing())).rejects.toThrow(
      "connection lost",
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(standIn.uploads.every((u) => !u.complete)).toBe(true);
    expect(standIn.requests.filter((r) => r.path.includes("/jobs/")).length).toBe(jobsBefore);
    expect(await warehouse.dayFigures(dayOf(target, "2024-05-01"), "id")).toMatchObject({
      rows: 1,
      key: { sum: "1" },
    });
  });

  it("refuses to empty a copied day when the source has no rows for it, and uploads nothing", async () => {
    const { target, schema } = await ordersTableWithOrderOn("2024-06-01");
    standIn.uploads.length = 0;
    const late = warehouse.replaceDay(dayOf(target, "2024-06-01"), schema, batchesOf([]));
    await expect(late).rejects.toBeInstanceOf(VerificationError);
    await expect(late).rejects.toThrow(/source has no rows for the day but the warehouse holds 1/);
    expect(standIn.uploads).toHaveLength(0);
    expect(standIn.requests.some((r) => r.method === "DELETE")).toBe(false);
    expect(await warehouse.dayFigures(dayOf(target, "2024-06-01"))).toEqual({ rows: 1 });
    expect(await warehouse.replaceDay(dayOf(target, "2024-06-02"), schema, batchesOf([]))).toEqual({
      rowsWritten: 0,
    });
  });

  it("adds a new source column to the table and loads it with field addition", async () => {
    const target = destination();
    await warehouse.ensureTable(target, ordersSchema(), "created_at");
    const note = {
      name: "note",
      dataType: "varchar",
      columnType: "varchar(10)",
      nullable: true,
      logicalType: { kind: "string" },
    } as const;
    const wider = ordersSchema({ kind: "uint64" }, [note]);
    await warehouse.ensureTable(target, wider, "created_at");
    const patch = standIn.requests.find((r) => r.method === "PATCH")?.body as
      | { schema: { fields: { name: string }[] } }
      | undefined;
    expect(patch?.schema.fields.map((f) => f.name)).toEqual(["id", "created_at", "note"]);
    await warehouse.replaceDay(
      dayOf(target, "2024-07-01"),
      wider,
      batchesOf([["1", "2024-07-01 00:00:00", "hi"]]),
    );
    expect(standIn.uploads[0]?.text).toBe('{"id":"1","created_at":"2024-07-01 00:00:00","note":"hi"}\n');
  });

  it("stops with a clear message on an incompatible schema change, before any upload", async () => {
    const target = destination();
    await warehouse.ensureTable(target, ordersSchema({ kind: "int64" }), "created_at");
    const changed = ordersSchema({ kind: "uint64" });
    await expect(warehouse.ensureTable(target, changed, "created_at")).rejects.toThrow(
      /id is INTEGER in BigQuery but the source now needs NUMERIC/,
    );
    await expect(
      warehouse.replaceDay(dayOf(target, "2024-01-01"), changed, batchesOf([order("1", "2024-01-01")])),
    ).rejects.toBeInstanceOf(VerificationError);
    expect(standIn.uploads).toHaveLength(0);
  });

  it("refuses a table that is not partitioned by day on the filter column", async () => {
    const target = destination();
    await warehouse.ensureTable(target, ordersSchema(), "created_at");
    await expect(warehouse.ensureTable(target, ordersSchema(), "id")).rejects.toThrow(
      /must be partitioned by DAY on id \(found: DAY on created_at\)/,
    );
  });

  it("counts 0 for a table or a day that does not exist", async () => {
    const missing = { dataset: "nowhere", table: "nothing" };
    expect(await warehouse.countRows(missing)).toBe(0);
    expect(await warehouse.dayFigures(dayOf(missing, "2024-01-01"), "id")).toEqual({
      rows: 0,
      key: { column: "id", count: 0, sum: "0", min: "", max: "" },
    });
  });

  it("lists a day's keys with one query on the day's partition range, one row per key", async () => {
    const { target } = await ordersTableWithOrderOn("2024-03-01");
    standIn.requests.length = 0;
    expect(await warehouse.dayKeys(dayOf(target, "2024-03-01"), "id")).toEqual(["1"]);
    const queries = standIn.requests.filter((r) => r.path.endsWith("/queries"));
    expect(queries).toHaveLength(1);
    expect(queries[0]?.body).toMatchObject({
      query: `SELECT CAST(\`id\` AS STRING) AS k FROM \`${PROJECT}.archive.${target.table}\` WHERE \`created_at\` >= @day_start AND \`created_at\` < @next_day_start`,
      location: LOCATION,
      useLegacySql: false,
      queryParameters: [
        {
          name: "day_start",
          parameterType: { type: "DATETIME" },
          parameterValue: { value: "2024-03-01 00:00:00" },
        },
        {
          name: "next_day_start",
          parameterType: { type: "DATETIME" },
          parameterValue: { value: "2024-03-02 00:00:00" },
        },
      ],
    });
  });

  it("lists no keys of a table that does not exist, and creates nothing", async () => {
    const missing = { dataset: "nowhere", table: "nothing" };
    expect(await warehouse.dayKeys(dayOf(missing, "2024-01-01"), "id")).toEqual([]);
    expect(standIn.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /bigquery/v2/projects/${PROJECT}/queries`,
    ]);
    expect(standIn.tables.has(`${PROJECT}.nowhere.nothing`)).toBe(false);
  });

  it("puts a destination that names a project in that project", async () => {
    const target: Destination = { project: "other-proj", dataset: "archive", table: "orders_elsewhere" };
    await warehouse.ensureTable(target, ordersSchema(), "created_at");
    await warehouse.replaceDay(
      dayOf(target, "2024-11-01"),
      ordersSchema(),
      batchesOf([order("1", "2024-11-01")]),
    );
    expect(standIn.tables.has("other-proj.archive.orders_elsewhere")).toBe(true);
    expect(standIn.uploads[0]?.metadata.configuration?.load?.destinationTable).toEqual({
      projectId: "other-proj",
      datasetId: "archive",
      tableId: "orders_elsewhere$20241101",
    });
    expect(await warehouse.countRows(target)).toBe(1);
  });
});
