import { ArchiverError, InvalidInputError, RefusalError, TransientError } from "../../errors";

/** What the failing call was about, so the error can name it. */
export interface MysqlErrorContext {
  readonly table?: string;
  readonly column?: string;
}

/** Failures that may pass on their own: the network, the server's capacity, lock contention. */
const TRANSIENT_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "PROTOCOL_CONNECTION_LOST",
  "PROTOCOL_SEQUENCE_TIMEOUT",
  "ER_CON_COUNT_ERROR",
  "ER_TOO_MANY_USER_CONNECTIONS",
  "ER_LOCK_DEADLOCK",
  "ER_LOCK_WAIT_TIMEOUT",
  "ER_SERVER_SHUTDOWN",
  "ER_CONNECTION_KILLED",
  "ER_QUERY_INTERRUPTED",
  "ER_NET_READ_ERROR",
  "ER_NET_READ_INTERRUPTED",
  "ER_NET_ERROR_ON_WRITE",
  "ER_NET_WRITE_INTERRUPTED",
  "ER_CLIENT_INTERACTION_TIMEOUT",
]);

/** The same failures by server error number, for drivers or proxies that only pass the number on. */
const TRANSIENT_ERRNOS = new Set([
  1040, 1053, 1158, 1159, 1160, 1161, 1203, 1205, 1213, 1317, 1927, 2006, 2013, 4031,
]);

/** A delete refused by a foreign key: the same rows would be refused on every retry. */
const REFERENCED_ROW_CODES = new Set(["ER_ROW_IS_REFERENCED", "ER_ROW_IS_REFERENCED_2"]);
const REFERENCED_ROW_ERRNOS = new Set([1217, 1451]);

const MISSING_TABLE_CODES = new Set([
  "ER_NO_SUCH_TABLE",
  "ER_BAD_TABLE_ERROR",
  "ER_BAD_DB_ERROR",
  "ER_NO_DB_ERROR",
]);

interface DriverError {
  readonly code?: unknown;
  readonly errno?: unknown;
  readonly sqlState?: unknown;
  readonly fatal?: unknown;
  readonly message?: unknown;
}

/**
 * Turns a mysql2 error into the archiver's error classes: connection-level
 * failures become TransientError (retry), a missing table or column becomes
 * InvalidInputError (never retry), a delete a foreign key refuses becomes
 * RefusalError (never retry: the same rows are refused every time). Anything else is returned unchanged: an
 * unexpected server error is neither safe to retry forever nor the caller's
 * fault.
 */
export function mapMysqlError(error: unknown, context: MysqlErrorContext = {}): unknown {
  if (error instanceof ArchiverError || typeof error !== "object" || error === null) return error;
  const { code, errno, sqlState, fatal, message } = error as DriverError;
  const text = typeof message === "string" ? message : String(error);
  const where = context.table ? ` (table "${context.table}")` : "";
  if (
    (typeof code === "string" && TRANSIENT_CODES.has(code)) ||
    (typeof errno === "number" && TRANSIENT_ERRNOS.has(errno)) ||
    // A fatal error without an SQL state is the connection dying under the
    // query (closed socket, protocol error), not the server refusing it.
    (fatal === true && sqlState === undefined)
  ) {
    return new TransientError(`MySQL unavailable${where}: ${text}`, { cause: error });
  }
  if (isReferencedRowError(error)) {
    return new RefusalError(`a foreign key refused the delete${where}: ${text}`, {
      cause: error,
      reason: "foreign-key",
    });
  }
  if (typeof code === "string" && MISSING_TABLE_CODES.has(code)) {
    return new InvalidInputError("table", `${context.table ? `"${context.table}": ` : ""}${text}`, {
      cause: error,
    });
  }
  if (code === "ER_BAD_FIELD_ERROR") {
    return new InvalidInputError("column", `${context.column ? `"${context.column}": ` : ""}${text}`, {
      cause: error,
    });
  }
  return error;
}

/** A delete (or update) a foreign key refused because rows of another table reference the rows. */
export function isReferencedRowError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, errno } = error as DriverError;
  return (
    (typeof code === "string" && REFERENCED_ROW_CODES.has(code)) ||
    (typeof errno === "number" && REFERENCED_ROW_ERRNOS.has(errno))
  );
}
