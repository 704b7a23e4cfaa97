import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Destination } from "../../domain/types/destination";
import { VerificationError } from "../../errors";
import { batchesOf, dayOf, order, ordersSchema } from "../../testing/orders-fixture";
import { STAND_IN_LOCATION, STAND_IN_PROJECT } from "./testing/stand-in-client";
import { destination, fixture, ordersTableWithOrderOn, standIn, warehouse } from "./testing/stand-in-fixture";

// Contract tests of the warehouse adapter: the real @google-cloud/bigquery
// client talks to a local stand-in of the REST API, which records what the
// library sends. They prove the requests, not BigQuery's behaviour; the live
// suite (bigquery-warehouse.live.test.ts) does that against a real project.
// Loading days: bigquery-warehouse-loads.contract.test.ts; error playback:
// bigquery-warehouse-errors.contract.test.ts; the shared warehouse suite:
// bigquery-warehouse-suite.contract.test.ts.

const PROJECT = STAND_IN_PROJECT;
const LOCATION = STAND_IN_LOCATION;

beforeAll(fixture.open);
afterAll(fixture.close);
beforeEach(fixture.clearRecords);

describe("BigQuery warehouse adapter against the local REST stand-in (contract)", () => {
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
