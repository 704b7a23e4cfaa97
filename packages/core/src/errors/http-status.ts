/**
 * The one HTTP status for each error code. Every HTTP surface of the archiver
 * answers with it: the task handler (`archiverTaskHandler`), the reader
 * (`loadRedisData`) and the local server of `pnpm dev`, so one code never
 * gets two answers. docs/architecture.md ("Errors over HTTP") has the same table.
 *
 * | Code                  | Status | Meaning                                                                 |
 * | --------------------- | ------ | ----------------------------------------------------------------------- |
 * | `INVALID_INPUT`       | 400    | a request or task that can never succeed as sent (InvalidInputError)    |
 * | `UNAUTHENTICATED`     | 401    | no valid token (local server)                                           |
 * | `FORBIDDEN`           | 403    | a token or key that may not do this                                     |
 * | `NOT_FOUND`           | 404    | no such route (local server)                                            |
 * | `METHOD_NOT_ALLOWED`  | 405    | another method than the one allowed                                     |
 * | `PAYLOAD_TOO_LARGE`   | 413    | a body over the limit                                                   |
 * | `VERIFICATION_FAILED` | 422    | understood, but the figures refuse it (VerificationError); final        |
 * | `INVALID_CONFIG`      | 500    | the deployment's configuration is wrong (ConfigError)                   |
 * | `NOT_A_SET`           | 500    | the reader's key holds something else than a set                        |
 * | `INTERNAL`            | 500    | anything else; the server's log has the details                         |
 * | `TRANSIENT`           | 503    | MySQL, Redis or a cloud service unreachable (TransientError); retry     |
 *
 * A verification failure is 422, not 500: the request was well formed and
 * the server did not fail; the day's figures refused it, and sending it again
 * unchanged cannot pass (isFinalTaskError).
 *
 * Cloud Tasks retries every answer but a 2xx. So the task handler, when Cloud
 * Tasks is the caller, answers a final error (INVALID_INPUT,
 * VERIFICATION_FAILED) with 200 and `{"status":"failed"}` instead, and every
 * other code with its status here, which Cloud Tasks retries.
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
