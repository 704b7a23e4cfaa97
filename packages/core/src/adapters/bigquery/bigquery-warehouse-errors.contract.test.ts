import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, RefusalError, TransientError } from "../../errors";
import type { Destination } from "../../model/destination";
import type { Warehouse } from "../../ports/warehouse";
import { batchesOf, dayOf, order, ordersSchema } from "../../testing/orders-fixture";
import type { BigQueryStandIn } from "./testing/rest-stand-in";
import { openRestStandInWarehouse } from "./testing/stand-in-client";

// Contract tests of the warehouse adapter's error mapping: the local stand-in
// of the BigQuery REST API plays back the errors BigQuery answers with, and the
// real client library carries them to the adapter.

let standIn: BigQueryStandIn;
let warehouse: Warehouse;
let close: () => Promise<void>;
let table = 0;

function destination(): Destination {
  table++;
  return { dataset: "archive", table: `errors_${table}` };
}

beforeAll(async () => {
  ({ standIn, warehouse, close } = await openRestStandInWarehouse());
});

afterAll(async () => {
  await close();
});

describe("BigQuery warehouse adapter errors, played back by the local REST stand-in (contract)", () => {
  it("turns a job's invalid-row errors into a verification failure carrying BigQuery's message", async () => {
    const target = destination();
    await warehouse.ensureTable(target, ordersSchema(), "created_at");
    standIn.failNextJob([
      {
        reason: "invalid",
        message: "Error while reading data, error message: JSON table encountered too many errors",
      },
      { reason: "invalid", message: "Could not convert value to NUMERIC. Field: id; Value: x" },
    ]);
    const failure = warehouse.replaceDay(
      dayOf(target, "2024-08-01"),
      ordersSchema(),
      batchesOf([order("1", "2024-08-01")]),
    );
    await expect(failure).rejects.toBeInstanceOf(RefusalError);
    await expect(failure).rejects.toThrow(/Could not convert value to NUMERIC\. Field: id/);
  });

  it.each([
    [503, "backendError", TransientError],
    [403, "rateLimitExceeded", TransientError],
    [403, "accessDenied", ConfigError],
  ] as const)("maps an upload answered %i %s", async (status, reason, type) => {
    const target = destination();
    await warehouse.ensureTable(target, ordersSchema(), "created_at");
    standIn.failNext("POST", /^\/upload\//, status, [{ reason, message: `${reason} from the stand-in` }]);
    const failure = warehouse.replaceDay(
      dayOf(target, "2024-09-01"),
      ordersSchema(),
      batchesOf([order("1", "2024-09-01")]),
    );
    await expect(failure).rejects.toBeInstanceOf(type);
    if (type === ConfigError)
      await expect(failure).rejects.toThrow(/roles\/bigquery\.dataEditor.*roles\/bigquery\.jobUser/);
  });

  it("maps a job that fails for a rate limit to a transient error", async () => {
    const target = destination();
    await warehouse.ensureTable(target, ordersSchema(), "created_at");
    standIn.failNextJob([
      { reason: "rateLimitExceeded", message: "Exceeded rate limits: too many table update operations" },
    ]);
    await expect(
      warehouse.replaceDay(
        dayOf(target, "2024-10-01"),
        ordersSchema(),
        batchesOf([order("1", "2024-10-01")]),
      ),
    ).rejects.toBeInstanceOf(TransientError);
  });
});
