import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import {
  openStandInWarehouse,
  STAND_IN_LOCATION,
  STAND_IN_PROJECT,
} from "@table-archiver/core/bigquery/testing";
import { loadConfig } from "@table-archiver/core/config";
import { silentLogger } from "@table-archiver/core/logging";
import { createRedisClient, createRedisMigrationLedger } from "@table-archiver/core/redis";
import { copyRecordOf, deleteTableRecords, testRedisUrl, uniqueName } from "@table-archiver/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLoadRedisDataHandler } from "./create-load-redis-data-handler";
import { rebuildFromWarehouse } from "./rebuild-from-warehouse";

// `rebuildSet` on the BigQuery path: the real BigQuery client against the local REST stand-in holds the
// durable record; Redis is the test's own keys.
const redis = createRedisClient({ url: testRedisUrl, auth: undefined });
const table = uniqueName("orders");
let bigquery: Awaited<ReturnType<typeof openStandInWarehouse>>;
let url: string;
let close: () => Promise<unknown>;

const bigQueryConfig = () =>
  loadConfig({
    REDIS_URL: testRedisUrl,
    WAREHOUSE: "bigquery",
    WAREHOUSE_DATASET: "archive",
    BIGQUERY_PROJECT: STAND_IN_PROJECT,
    BIGQUERY_LOCATION: STAND_IN_LOCATION,
  });

beforeAll(async () => {
  bigquery = await openStandInWarehouse();
  for (const day of ["2021-01-02", "2021-01-01"]) {
    await bigquery.warehouse.recordDay(
      { dataset: "archive" },
      { kind: "copied", table, copy: copyRecordOf(day, "2021-02-01T00:00:00.000Z") },
    );
  }
  const handler = createLoadRedisDataHandler({
    redis: () => redis,
    rebuild: rebuildFromWarehouse(
      bigQueryConfig,
      () => redis,
      silentLogger,
      async () => bigquery.warehouse,
    ),
  });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      void handler(Object.assign(req as IncomingMessage, { rawBody: Buffer.concat(chunks) }), res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/loadRedisData`;
  close = () => new Promise((resolve) => server.close(resolve));
});

afterAll(async () => {
  await close?.();
  await bigquery?.close();
  await deleteTableRecords(redis, [table]);
  await redis.quit();
});

const post = (body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("loadRedisData rebuildSet", () => {
  it("writes the recorded days back to Redis and answers the set, which getSet then reads too", async () => {
    expect(await (await post({ method: "getSet", data: `mig_${table}` })).json()).toEqual([]);
    const response = await post({ method: "rebuildSet", data: `mig_${table}` });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(["2021-01-01", "2021-01-02"]);
    expect(await (await post({ method: "getSet", data: `mig_${table}` })).json()).toEqual([
      "2021-01-01",
      "2021-01-02",
    ]);
    const ledger = createRedisMigrationLedger(redis);
    expect((await ledger.copiedDay(table, "2021-01-01"))?.copiedAt).toBe("2021-02-01T00:00:00.000Z");
  });

  it("reads another dataset when asked, and refuses a bad dataset name with 400", async () => {
    const elsewhere = await post({ method: "rebuildSet", data: `mig_${table}`, dataset: "nowhere" });
    expect(elsewhere.status).toBe(200);
    const bad = await post({ method: "rebuildSet", data: `mig_${table}`, dataset: "a-b" });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain("dataset");
  });

  it("refuses on a DuckDB deployment, naming the local command", async () => {
    const handler = rebuildFromWarehouse(
      () => loadConfig({ REDIS_URL: testRedisUrl }),
      () => redis,
      silentLogger,
    );
    await expect(handler(table, undefined)).rejects.toThrow(/archiver status --rebuild/);
  });
});
