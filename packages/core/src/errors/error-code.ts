/** The codes of the archiver's own errors (InvalidInputError, RefusalError, TransientError, ConfigError). */
const ARCHIVER_ERROR_CODES = ["INVALID_INPUT", "VERIFICATION_FAILED", "TRANSIENT", "INVALID_CONFIG"] as const;

export type ArchiverErrorCode = (typeof ARCHIVER_ERROR_CODES)[number];

const KNOWN = new Set<string>(ARCHIVER_ERROR_CODES);

/**
 * The archiver's code of `error`, or INTERNAL when it carries none of them.
 * Judged by the error's `code`, not its class, so an error from another copy
 * of this package (a bundle) or one that crossed the BullMQ worker counts the
 * same; a driver's own code (ER_LOCK_DEADLOCK, ECONNREFUSED) is INTERNAL.
 */
export function archiverErrorCode(error: unknown): ArchiverErrorCode | "INTERNAL" {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && KNOWN.has(code) ? (code as ArchiverErrorCode) : "INTERNAL";
}

/**
 * Whether retrying a task that failed with `error` is pointless: invalid input
 * (InvalidInputError) or a refused verification (RefusalError), judged
 * by code as above.
 */
export function isFinalTaskError(error: unknown): boolean {
  const code = archiverErrorCode(error);
  return code === "INVALID_INPUT" || code === "VERIFICATION_FAILED";
}
