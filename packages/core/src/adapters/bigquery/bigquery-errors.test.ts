import { describe, expect, it } from "vitest";
import { ConfigError, RefusalError, TransientError } from "../../errors";
import { isAlreadyExists, isNotFound, mapBigQueryError } from "./bigquery-errors";

const context = { action: "loading archive.orders 2024-01-31", project: "acme-prod", dataset: "archive" };

/** The shape of @google-cloud/common's ApiError: HTTP status, inner errors with reasons. */
const apiError = (code: number | undefined, errors: { reason: string; message: string }[]) =>
  Object.assign(new Error(errors.map((e) => e.message).join("\n")), { code, errors });

describe("mapBigQueryError", () => {
  it.each([
    ["a 503", apiError(503, [{ reason: "backendError", message: "Backend error" }])],
    ["a 500 without reasons", apiError(500, [])],
    ["a 429", apiError(429, [{ reason: "rateLimitExceeded", message: "Too many requests" }])],
    [
      "a rate limit sent as 403",
      apiError(403, [{ reason: "rateLimitExceeded", message: "Exceeded rate limits" }]),
    ],
    ["a quota sent as 403", apiError(403, [{ reason: "quotaExceeded", message: "Quota exceeded" }])],
    [
      "a job that failed in the backend",
      apiError(undefined, [{ reason: "jobBackendError", message: "retry" }]),
    ],
    ["a reset connection", Object.assign(new Error("socket hang up"), { code: "ECONNRESET" })],
  ])("makes %s transient", (_, error) => {
    const mapped = mapBigQueryError(error, context);
    expect(mapped).toBeInstanceOf(TransientError);
    expect(mapped.message).toContain("loading archive.orders 2024-01-31");
    expect(mapped.cause).toBe(error);
  });

  it("names the roles to grant when permission is denied", () => {
    const error = apiError(403, [
      {
        reason: "accessDenied",
        message:
          "Access Denied: Table acme-prod:archive.orders: Permission bigquery.tables.updateData denied",
      },
    ]);
    const mapped = mapBigQueryError(error, context);
    expect(mapped).toBeInstanceOf(ConfigError);
    expect(mapped.message).toContain("roles/bigquery.dataEditor on dataset acme-prod.archive");
    expect(mapped.message).toContain("roles/bigquery.jobUser on project acme-prod");
    expect(mapped.message).toContain("Permission bigquery.tables.updateData denied");
  });

  it("names the roles when a job fails with accessDenied (no HTTP status)", () => {
    const mapped = mapBigQueryError(
      apiError(undefined, [{ reason: "accessDenied", message: "denied" }]),
      context,
    );
    expect(mapped).toBeInstanceOf(ConfigError);
    expect(mapped.message).toContain("roles/bigquery.jobUser");
  });

  it("points at the credentials on 401", () => {
    const mapped = mapBigQueryError(
      apiError(401, [{ reason: "authError", message: "Invalid Credentials" }]),
      context,
    );
    expect(mapped).toBeInstanceOf(ConfigError);
    expect(mapped.message).toContain("GOOGLE_APPLICATION_CREDENTIALS");
  });

  it("carries BigQuery's own messages for invalid rows", () => {
    const error = apiError(undefined, [
      {
        reason: "invalid",
        message: "Error while reading data, error message: JSON table encountered too many errors",
      },
      { reason: "invalid", message: "Invalid NUMERIC value: 1e999 Field: price; Value: 1e999" },
    ]);
    const mapped = mapBigQueryError(error, context);
    expect(mapped).toBeInstanceOf(RefusalError);
    expect(mapped.message).toBe(
      "BigQuery loading archive.orders 2024-01-31: Error while reading data, error message: JSON table encountered too many errors; Invalid NUMERIC value: 1e999 Field: price; Value: 1e999",
    );
  });

  it("keeps archiver errors and errors that did not come from BigQuery as they are", () => {
    const verification = new RefusalError("bad value");
    expect(mapBigQueryError(verification, context)).toBe(verification);
    const bug = new TypeError("x is undefined");
    expect(mapBigQueryError(bug, context)).toBe(bug);
  });
});

describe("status helpers", () => {
  it("recognise 404 and 409", () => {
    expect(isNotFound(apiError(404, [{ reason: "notFound", message: "Not found" }]))).toBe(true);
    expect(isNotFound(apiError(409, []))).toBe(false);
    expect(isAlreadyExists(apiError(409, [{ reason: "duplicate", message: "Already Exists" }]))).toBe(true);
    expect(isAlreadyExists(new Error("409"))).toBe(false);
  });
});
