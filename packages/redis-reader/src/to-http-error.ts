import { ArchiverError, InvalidInputError, TransientError } from "@table-archiver/core";
import { HttpError } from "./http-error";

/**
 * Maps anything thrown while serving a request to the answer it gets: refusals
 * keep their status, invalid input is 400, transient failures (Redis or MySQL
 * down) are 503 so callers retry, a bad configuration is 500 with its message
 * (it names variables, never values), and anything else is a 500 that tells
 * nothing about the internals.
 */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof InvalidInputError) return new HttpError(400, error.code, error.message);
  if (error instanceof TransientError) return new HttpError(503, error.code, error.message);
  if (error instanceof ArchiverError) return new HttpError(500, error.code, error.message);
  return new HttpError(500, "INTERNAL", "internal error; the server log has the details");
}
