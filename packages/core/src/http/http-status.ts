/**
 * The one HTTP status for each error code. Every HTTP surface of the archiver
 * answers with it: the task handler (`archiverTaskHandler`), the reader
 * (`loadRedisData`) and the local server of `pnpm dev`, so one code never
 * gets two answers. docs/architecture.md ("Errors over HTTP") says what each
 * code means. A verification failure is 422, not 500: the request was well
 * formed and the server did not fail, and sending it again unchanged cannot
 * pass (isFinalTaskError); the task handler answers it with 200 when Cloud
 * Tasks, which retries every answer but a 2xx, is the caller.
 */
export const HTTP_STATUS_BY_CODE = {
  INVALID_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  VERIFICATION_FAILED: 422,
  INVALID_CONFIG: 500,
  NOT_A_SET: 500,
  INTERNAL: 500,
  TRANSIENT: 503,
} as const;

/** A code an HTTP surface of the archiver answers with. */
export type HttpErrorCode = keyof typeof HTTP_STATUS_BY_CODE;

/** The status for `code`; 500 for a code the table does not know. */
export function httpStatusOf(code: string): number {
  return Object.hasOwn(HTTP_STATUS_BY_CODE, code) ? HTTP_STATUS_BY_CODE[code as HttpErrorCode] : 500;
}
