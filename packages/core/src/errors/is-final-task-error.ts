/** The codes of InvalidInputError and VerificationError: a task that fails with one can never pass. */
const FINAL_CODES = new Set(["INVALID_INPUT", "VERIFICATION_FAILED"]);

/**
 * Whether retrying a task that failed with `error` is pointless: invalid input
 * or a refused verification. Decided by the error's code, not its class, so an
 * error from another copy of this package (a bundle) is judged the same.
 */
export function isFinalTaskError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && FINAL_CODES.has(code);
}
