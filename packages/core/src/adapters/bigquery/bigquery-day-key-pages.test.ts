import { beforeEach, describe, expect, it } from "vitest";
import { RefusalError, TransientError } from "../../errors";
import type { Warehouse } from "../../ports/warehouse";
import { dayOf } from "../../testing/orders-fixture";
import { createBigQueryWarehouse } from "./bigquery-warehouse";
import { apiError, type BigQueryDouble, bigQueryDouble } from "./testing/client-double";
import { pagesOf } from "./testing/pages-of";

// dayKeys on the client double: one query job for the day's keys, its
// result read a page at a time as the listing is iterated, never gathered
// whole (the library would gather every page unless asked for pages).

const target = { dataset: "archive", table: "orders" };
const day = dayOf(target, "2024-01-31");
const keys = (...ids: (string | null)[]) => [ids.map((k) => ({ k }))];
let bq: BigQueryDouble;
let warehouse: Warehouse;

beforeEach(() => {
  bq = bigQueryDouble();
  warehouse = createBigQueryWarehouse({ project: "acme", location: "EU", client: bq.client });
});

describe("BigQuery warehouse adapter: a day's keys, page by page", () => {
  it("asks for pages of pageKeys rows, and for the next page only when the listing reaches it", async () => {
    bq.answer("query", keys("1", "2", "3", "4", "5"));
    const pages = warehouse.dayKeys(day, "id", 2)[Symbol.asyncIterator]();

    expect(await pages.next()).toEqual({ done: false, value: ["1", "2"] });
    expect(bq.callsOf("query")).toHaveLength(1);
    expect(bq.callsOf("query")[0]?.argument).toMatchObject({
      query: expect.stringMatching(/ ORDER BY `id`$/),
      paging: { maxResults: 2 },
    });
    expect(bq.callsOf("getQueryResults")).toEqual([]);

    expect(await pages.next()).toEqual({ done: false, value: ["3", "4"] });
    expect(bq.callsOf("getQueryResults").map((call) => call.argument)).toMatchObject([
      { pageToken: "2", maxResults: 2 },
    ]);
    expect(await pages.next()).toEqual({ done: false, value: ["5"] });
    expect(await pages.next()).toEqual({ done: true, value: undefined });
    expect(bq.callsOf("query")).toHaveLength(1);
    expect(bq.callsOf("getQueryResults")).toHaveLength(2);
  });

  it("lists no key of a row without one, and no empty page", async () => {
    bq.answer("query", keys(null, null, "7"));
    expect(await pagesOf(warehouse.dayKeys(day, "id", 2))).toEqual([["7"]]);
  });

  it("asks again for a page BigQuery has not finished, rather than ending the listing there", async () => {
    const asked: unknown[] = [];
    const job = {
      async getQueryResults(request: unknown) {
        asked.push(request);
        return [[{ k: "8" }], null, {}] as [unknown[], null, unknown];
      },
    };
    // A job still running: no rows yet, and a nextQuery without a pageToken.
    const running = createBigQueryWarehouse({
      project: "acme",
      location: "EU",
      client: { ...bq.client, query: async () => [[], { job }, {}] as [unknown[], unknown, unknown] },
    });
    expect(await pagesOf(running.dayKeys(day, "id", 2))).toEqual([["8"]]);
    expect(asked).toEqual([{ job, maxResults: 2 }]);
  });

  it("fails the listing when the job of a running query is not found, rather than listing no keys", async () => {
    const job = {
      getQueryResults: async () => {
        throw apiError(404, "notFound", "Not found: Job acme:EU.job_1");
      },
    };
    const lost = createBigQueryWarehouse({
      project: "acme",
      location: "EU",
      client: { ...bq.client, query: async () => [[], { job }, {}] as [unknown[], unknown, unknown] },
    });
    await expect(pagesOf(lost.dayKeys(day, "id", 2))).rejects.toBeInstanceOf(RefusalError);
  });

  it("fails the listing when a later page fails, rather than ending it as if the day ended", async () => {
    bq.answer("query", keys("1", "2", "3"));
    bq.fail("getQueryResults", apiError(503, "backendError"));
    await expect(pagesOf(warehouse.dayKeys(day, "id", 2))).rejects.toBeInstanceOf(TransientError);
    bq.answer("query", keys("1", "2", "3"));
    bq.fail("getQueryResults", apiError(404, "notFound", "Not found: Job acme:EU.job_1"));
    await expect(pagesOf(warehouse.dayKeys(day, "id", 2))).rejects.toBeInstanceOf(RefusalError);
  });

  it("refuses a page size that is not a positive integer, before any query", async () => {
    for (const pageKeys of [0, -1, 1.5]) {
      await expect(pagesOf(warehouse.dayKeys(day, "id", pageKeys))).rejects.toBeInstanceOf(RangeError);
    }
    expect(bq.callsOf("query")).toEqual([]);
  });
});
