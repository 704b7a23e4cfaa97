import { BigQuery } from "@google-cloud/bigquery";
import { OAuth2Client } from "google-auth-library";
import { createBigQueryWarehouse } from "../bigquery-warehouse";
import { startBigQueryStandIn } from "./rest-stand-in";

/** The bearer token stand-in clients send; the stand-in records it. */
export const STAND_IN_TOKEN = "stand-in-token";

/** An auth client with a fixed, unexpired access token: no credentials, no metadata server. */
export function standInAuthClient(): OAuth2Client {
  const auth = new OAuth2Client();
  auth.setCredentials({ access_token: STAND_IN_TOKEN, expiry_date: Date.now() + 24 * 3_600_000 });
  return auth;
}

/** The real BigQuery client pointed at a stand-in. */
export function standInBigQueryClient(url: string, project: string, location: string): BigQuery {
  return new BigQuery({ projectId: project, location, apiEndpoint: url, authClient: standInAuthClient() });
}

/** Project and location the stand-in tests use. */
export const STAND_IN_PROJECT = "acme-test";
export const STAND_IN_LOCATION = "EU";

/** A stand-in and the warehouse adapter talking to it through the real client. */
export async function openStandInWarehouse(options: { keepRows?: boolean } = {}) {
  const standIn = await startBigQueryStandIn(options);
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
