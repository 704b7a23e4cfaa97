import { archiverErrorCode, messageOf } from "../errors";
import { type HttpErrorCode, httpStatusOf } from "./http-status";

/**
 * A request an HTTP surface refuses, answered with the status of its code
 * (HTTP_STATUS_BY_CODE) and the body `{"error":{"code","message"}}`. Thrown by
 * the small parsing and authorization steps, caught once where the response
 * is written.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly code: HttpErrorCode;
  /** Extra response headers, such as `Allow` on a 405. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: HttpErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = "HttpError";
    this.status = httpStatusOf(code);
    this.code = code;
    this.headers = headers;
  }
}

/** The error body every HTTP answer of the archiver uses. */
export function errorBody(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message } };
}

export const badRequest = (message: string) => new HttpError("INVALID_INPUT", message);
export const unauthenticated = (message: string) =>
  new HttpError("UNAUTHENTICATED", message, { "www-authenticate": 'Bearer realm="table-archiver"' });
export const forbidden = (message: string) => new HttpError("FORBIDDEN", message);
export const methodNotAllowed = (allow: string) =>
  new HttpError("METHOD_NOT_ALLOWED", `use ${allow}`, { allow });
export const payloadTooLarge = (limitBytes: number) =>
  new HttpError("PAYLOAD_TOO_LARGE", `the body is larger than ${limitBytes} bytes`);

/**
 * Maps anything thrown while serving a request to the answer it gets: an
 * HttpError as it is; one of the archiver's own errors (by its code, see
 * archiverErrorCode) with its code's status and its message (a ConfigError's
 * names variables, never values); anything else a 500 INTERNAL that tells
 * nothing about the internals.
 */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  const code = archiverErrorCode(error);
  if (code === "INTERNAL") return new HttpError("INTERNAL", "internal error; the server log has the details");
  return new HttpError(code, messageOf(error));
}
