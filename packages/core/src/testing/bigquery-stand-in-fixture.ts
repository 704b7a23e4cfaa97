import type { BigQueryStandIn } from "../adapters/bigquery/testing/rest-stand-in";
import { openRestStandInWarehouse } from "../adapters/bigquery/testing/stand-in-client";
import type { Destination } from "../model/destination";
import type { Warehouse } from "../ports/warehouse";
import { batchesOf, dayOf, order, ordersSchema } from "./orders-fixture";

/**
 * The REST stand-in and the warehouse adapter talking to it through the real
 * client, for the REST contract tests: opened in the test file's beforeAll,
 * closed in its afterAll, its records cleared before each test. vitest gives
 * each test file its own instance of this module, so each file has its own
 * stand-in.
 */
export let standIn: BigQueryStandIn;
export let warehouse: Warehouse;
let close: () => Promise<void>;
let table = 0;

/** The file's hooks: beforeAll, afterAll and beforeEach. */
export const fixture = {
  async open(): Promise<void> {
    ({ standIn, warehouse, close } = await openRestStandInWarehouse());
  },
  async close(): Promise<void> {
    await close();
  },
  clearRecords(): void {
    standIn.requests.length = 0;
    standIn.uploads.length = 0;
  },
};

/** A new table of the archive dataset, every_type_1, every_type_2, ... */
export function destination(): Destination {
  table++;
  return { dataset: "archive", table: `every_type_${table}` };
}

/** A new orders table, with order 1 loaded on `day`; the records then start afresh. */
export async function ordersTableWithOrderOn(day: string) {
  const target = destination();
  const schema = ordersSchema();
  await warehouse.ensureTable(target, schema, "created_at");
  await warehouse.replaceDay(dayOf(target, day), schema, batchesOf([order("1", day)]));
  fixture.clearRecords();
  return { target, schema };
}
