import { ArchiverError, ConfigError, RefusalError, TransientError } from "../../errors";

/** What the adapter was doing, for messages that tell the operator where it failed. */
export interface BigQueryErrorContext {
  /** For example `loading t 2024-01-31` or `creating dataset archive`. */
  readonly action: string;
  /** The project the job or request ran in. */
  readonly project: string;
  readonly dataset: string;
}

/** The parts of an ApiError (from @google-cloud/common) or a job's status this mapping reads. */
interface ErrorFacts {
  readonly status: number | undefined;
  readonly reasons: readonly string[];
  readonly messages: readonly string[];
  readonly networkCode: string | undefined;
}

const TRANSIENT_REASONS = new Set([
  "rateLimitExceeded",
  "userRateLimitExceeded",
  "quotaExceeded",
  "backendError",
  "internalError",
  "jobBackendError",
  "jobInternalError",
  "tableUnavailable",
  "stopped",
]);
const TRANSIENT_STATUS = new Set([408, 429, 500, 502, 503, 504]);
const NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ETIMEDOUT",
  "EPIPE",
  "EAI_AGAIN",
  "ENOTFOUND",
  "ERR_STREAM_PREMATURE_CLOSE",
]);

/**
 * Maps a failure of the BigQuery client to the archiver's errors:
 * rate limits, quotas, 5xx, backend errors and network failures are
 * TransientError (retried); permission failures are a ConfigError naming the
 * roles to grant; invalid data or schema (the load job's `invalid` errors) and
 * other 4xx are RefusalError carrying BigQuery's own messages. Checked in
 * that order because BigQuery answers rate limits with 403 too. Errors that
 * did not come from BigQuery are returned unchanged.
 */
export function mapBigQueryError(error: unknown, context: BigQueryErrorContext): Error {
  if (error instanceof ArchiverError) return error;
  const facts = readFacts(error);
  const said = facts.messages.length > 0 ? facts.messages.slice(0, 5).join("; ") : String(error);
  const options = { cause: error };
  if (
    facts.reasons.some((reason) => TRANSIENT_REASONS.has(reason)) ||
    (facts.status !== undefined && TRANSIENT_STATUS.has(facts.status)) ||
    (facts.networkCode !== undefined && NETWORK_CODES.has(facts.networkCode))
  ) {
    return new TransientError(`BigQuery ${context.action}: ${said}`, options);
  }
  if (facts.status === 401) {
    return new ConfigError(
      `BigQuery ${context.action}: the credentials were rejected (${said}); check GOOGLE_APPLICATION_CREDENTIALS or the function's service account`,
      options,
    );
  }
  if (facts.status === 403 || facts.reasons.includes("accessDenied")) {
    return new ConfigError(
      `BigQuery ${context.action}: permission denied. Grant the service account roles/bigquery.dataEditor on dataset ${context.project}.${context.dataset} (or on project ${context.project} so it can create the dataset) and roles/bigquery.jobUser on project ${context.project}. BigQuery said: ${said}`,
      options,
    );
  }
  if (facts.status === undefined && facts.reasons.length === 0) {
    // Not an answer from BigQuery (a bug, an aborted stream): leave it as it is.
    return error instanceof Error ? error : new Error(`BigQuery ${context.action}: ${said}`);
  }
  return new RefusalError(`BigQuery ${context.action}: ${said}`, options);
}

/** True when the error is BigQuery's "not found" (404). */
export function isNotFound(error: unknown): boolean {
  return readFacts(error).status === 404;
}

/**
 * A read of the warehouse that answers `missing` when what it reads does not
 * exist (404: the table or dataset was never written), and maps any other
 * error as mapBigQueryError does.
 */
export async function readOrMissing<T>(
  missing: T,
  context: BigQueryErrorContext,
  read: () => Promise<T>,
): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (isNotFound(error)) return missing;
    throw mapBigQueryError(error, context);
  }
}

/** True when the error is BigQuery's "already exists" (409). */
export function isAlreadyExists(error: unknown): boolean {
  return readFacts(error).status === 409;
}

function readFacts(error: unknown): ErrorFacts {
  if (typeof error !== "object" || error === null) {
    return { status: undefined, reasons: [], messages: [], networkCode: undefined };
  }
  const record = error as Record<string, unknown>;
  const code = record.code;
  const details = Array.isArray(record.errors) ? (record.errors as unknown[]) : [];
  const reasons: string[] = [];
  const messages: string[] = [];
  for (const detail of details) {
    if (typeof detail !== "object" || detail === null) continue;
    const { reason, message } = detail as Record<string, unknown>;
    if (typeof reason === "string") reasons.push(reason);
    if (typeof message === "string" && !messages.includes(message)) messages.push(message);
  }
  if (messages.length === 0 && typeof record.message === "string" && record.message !== "") {
    messages.push(record.message);
  }
  return {
    status: typeof code === "number" ? code : undefined,
    reasons,
    messages,
    networkCode: typeof code === "string" ? code : undefined,
  };
}
