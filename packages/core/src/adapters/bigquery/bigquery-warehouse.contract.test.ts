import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Destination } from "../../model/destination";
import {
  destination,
  fixture,
  ordersTableWithOrderOn,
  standIn,
  warehouse,
} from "../../testing/bigquery-stand-in-fixture";
import { batchesOf, dayOf, order, ordersSchema } from "../../testing/orders-fixture";
import { STAND_IN_LOCATION, STAND_IN_PROJECT } from "./testing/stand-in-client";

// Contract tests of the warehouse adapter: the real @google-cloud/bigquery
// client talks to a local stand-in of the REST API, which records what the
// library sends and answers what the test arranged. They prove the requests;
// the adapter's behaviour is tested on a client double
// (bigquery-warehouse.test.ts), the shared warehouse suite runs on an
// in-memory stand-in (bigquery-warehouse-suite.contract.test.ts), and only
// the live suite (bigquery-warehouse.live.test.ts) shows what BigQuery does.
// Loading days: bigquery-warehouse-loads.contract.test.ts; error playback:
// bigquery-warehouse-errors.contract.test.ts.

const PROJECT = STAND_IN_PROJECT;
const LOCATION = STAND_IN_LOCATION;

/** The parameters binding 2024-03-01 as a DATETIME range: the client sends them only when wrapped. */
const MARCH_FIRST = [
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
];

beforeAll(fixture.open);
afterAll(fixture.close);
beforeEach(fixture.clearRecords);

describe("BigQuery warehouse adapter against the local REST stand-in (contract)", () => {
  it("counts a day with one query whose DATETIME bounds the client sends with their values", async () => {
    const { target } = await ordersTableWithOrderOn("2024-03-01");
    standIn.answerQuery([{ row_count: "2" }]);
    expect(await warehouse.dayFigures(dayOf(target, "2024-03-01"))).toEqual({ rows: 2 });
    const queries = standIn.requests.filter((r) => r.path.endsWith("/queries"));
    expect(queries).toHaveLength(1);
    expect(queries[0]?.body).toMatchObject({
      query: `SELECT CAST(COUNT(*) AS STRING) AS row_count FROM \`${PROJECT}.archive.${target.table}\` WHERE \`created_at\` >= @day_start AND \`created_at\` < @next_day_start`,
      location: LOCATION,
      useLegacySql: false,
      queryParameters: MARCH_FIRST,
    });
  });

  it("lists a day's keys with one query on the day's partition range, read a page of maxResults at a time", async () => {
    const { target } = await ordersTableWithOrderOn("2024-03-01");
    standIn.answerQuery([{ k: "1" }, { k: "5" }, { k: "18446744073709551615" }]);
    const pages = warehouse.dayKeys(dayOf(target, "2024-03-01"), "id", 2)[Symbol.asyncIterator]();
    expect(await pages.next()).toEqual({ done: false, value: ["1", "5"] });
    const queries = () => standIn.requests.filter((r) => /\/queries(\/|$)/.test(r.path));
    expect(queries()).toHaveLength(1);
    expect(queries()[0]?.body).toMatchObject({
      query: `SELECT CAST(\`id\` AS STRING) AS k FROM \`${PROJECT}.archive.${target.table}\` WHERE \`created_at\` >= @day_start AND \`created_at\` < @next_day_start ORDER BY \`id\``,
      location: LOCATION,
      useLegacySql: false,
      queryParameters: MARCH_FIRST,
      maxResults: 2,
    });
    expect(await pages.next()).toEqual({ done: false, value: ["18446744073709551615"] });
    expect(await pages.next()).toEqual({ done: true, value: undefined });
    // The second page: the query job's results, from the first page's token on, again maxResults at most.
    expect(queries().map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /bigquery/v2/projects/${PROJECT}/queries`,
      expect.stringMatching(new RegExp(`^GET /bigquery/v2/projects/${PROJECT}/queries/query_`)),
    ]);
    expect(queries()[1]?.query).toMatchObject({
      pageToken: expect.stringMatching(/^page_/),
      maxResults: "2",
    });
  });

  it("lists no keys of a table that does not exist with one query, and creates nothing", async () => {
    const missing = { dataset: "nowhere", table: "nothing" };
    standIn.failNext("POST", /\/queries$/, 404, [
      { reason: "notFound", message: "Not found: Table nothing" },
    ]);
    const pages = warehouse.dayKeys(dayOf(missing, "2024-01-01"), "id", 10);
    expect(await pages[Symbol.asyncIterator]().next()).toEqual({ done: true, value: undefined });
    expect(standIn.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /bigquery/v2/projects/${PROJECT}/queries`,
    ]);
    expect(standIn.tables.has(`${PROJECT}.nowhere.nothing`)).toBe(false);
  });

  it("adds a new source column with a PATCH of the table's schema, and loads it", async () => {
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
    standIn.answerQuery([{ row_count: "1" }]);
    expect(await warehouse.countRows(target)).toBe(1);
    expect(standIn.requests.at(-1)?.body).toMatchObject({
      query: "SELECT CAST(COUNT(*) AS STRING) AS row_count FROM `other-proj.archive.orders_elsewhere`",
    });
  });
});
