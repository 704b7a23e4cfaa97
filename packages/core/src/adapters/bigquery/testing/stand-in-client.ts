import { BigQuery } from "@google-cloud/bigquery";
import { OAuth2Client } from "google-auth-library";
import { createBigQueryWarehouse } from "../bigquery-warehouse";
import { memoryBigQuery } from "./memory-bigquery";
import { startBigQueryStandIn } from "./rest-stand-in";

/** The bearer token stand-in clients send; the REST stand-in records it. */
export const STAND_IN_TOKEN = "stand-in-token";

/** An auth client with a fixed, unexpired access token: no credentials, no metadata server. */
export function standInAuthClient(): OAuth2Client {
  const auth = new OAuth2Client();
  auth.setCredentials({ access_token: STAND_IN_TOKEN, expiry_date: Date.now() + 24 * 3_600_000 });
  return auth;
}

/** The real BigQuery client pointed at the REST stand-in (startBigQueryStandIn). */
export function standInBigQueryClient(url: string, project: string, location: string): BigQuery {
  return new BigQuery({ projectId: project, location, apiEndpoint: url, authClient: standInAuthClient() });
}

/** Project and location the stand-in tests use. */
export const STAND_IN_PROJECT = "acme-test";
export const STAND_IN_LOCATION = "EU";

/**
 * The warehouse adapter on the client double with rows (memoryBigQuery):
 * a BigQuery warehouse with tables, loads and the durable day record, for
 * tests of what uses one.
 */
export async function openStandInWarehouse() {
  const standIn = memoryBigQuery();
  const warehouse = createBigQueryWarehouse({
    project: STAND_IN_PROJECT,
    location: STAND_IN_LOCATION,
    client: standIn.client,
  });
  return {
    standIn,
    warehouse,
    async close() {
      await warehouse.close();
    },
  };
}

/** The REST stand-in, and the warehouse adapter talking to it through the real client library. */
export async function openRestStandInWarehouse() {
  const standIn = await startBigQueryStandIn();
  const warehouse = createBigQueryWarehouse({
    project: STAND_IN_PROJECT,
    location: STAND_IN_LOCATION,
    client: standInBigQueryClient(standIn.url, STAND_IN_PROJECT, STAND_IN_LOCATION),
  });
  return {
    standIn,
    warehouse,
    async close() {
      await warehouse.close();
      await standIn.close();
    },
  };
}
