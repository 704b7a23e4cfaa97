/**
 * A request the HTTP functions refuse, answered with `status` and the body
 * `{"error":{"code","message"}}`. Thrown by the small parsing and
 * authorization steps, caught once where the response is written.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  /** Extra response headers, such as `Allow` on a 405. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/** The error body every HTTP answer of the archiver uses. */
export function errorBody(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message } };
}

export const badRequest = (message: string) => new HttpError(400, "INVALID_INPUT", message);
export const unauthenticated = (message: string) =>
  new HttpError(401, "UNAUTHENTICATED", message, { "www-authenticate": 'Bearer realm="table-archiver"' });
export const forbidden = (message: string) => new HttpError(403, "FORBIDDEN", message);
export const methodNotAllowed = (allow: string) =>
  new HttpError(405, "METHOD_NOT_ALLOWED", `use ${allow}`, { allow });
export const payloadTooLarge = (limitBytes: number) =>
  new HttpError(413, "PAYLOAD_TOO_LARGE", `the body is larger than ${limitBytes} bytes`);
