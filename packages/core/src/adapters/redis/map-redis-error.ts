import { ArchiverError, TransientError } from "../../errors";

/** Node socket error codes that mean "Redis is not reachable right now". */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
]);

/** Error names from ioredis and BullMQ for a command that never got an answer. */
const CONNECTION_NAMES = new Set([
  "MaxRetriesPerRequestError",
  "ConnectionClosedError",
  "ClusterAllFailedError",
]);

/** Messages ioredis uses for the same, without a dedicated class. */
const CONNECTION_MESSAGES = [
  "Connection is closed",
  "Command timed out",
  "Stream isn't writeable",
  "connect ETIMEDOUT",
];

/** Server replies that pass on their own: loading, failover, busy script, memory pressure. */
const TRANSIENT_REPLIES = /^(LOADING|BUSY|TRYAGAIN|CLUSTERDOWN|MASTERDOWN|READONLY|OOM)\b/;

/**
 * Maps an error from ioredis or BullMQ to the core's vocabulary: anything that
 * means Redis is unreachable or momentarily unable to answer becomes a
 * TransientError (retry); everything else (wrong password, WRONGTYPE, bugs) is
 * returned unchanged, because retrying would not help.
 */
export function mapRedisError(error: unknown): unknown {
  if (error instanceof ArchiverError || !(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  const isConnection =
    (typeof code === "string" && CONNECTION_CODES.has(code)) ||
    CONNECTION_NAMES.has(error.name) ||
    CONNECTION_MESSAGES.some((text) => error.message.includes(text)) ||
    TRANSIENT_REPLIES.test(error.message);
  return isConnection ? new TransientError(`Redis unavailable: ${error.message}`, { cause: error }) : error;
}

/** Runs a Redis operation and rethrows its failure through mapRedisError. */
export async function withRedisErrors<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw mapRedisError(error);
  }
}
