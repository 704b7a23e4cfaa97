import { ArchiverError } from "./archiver-error";

/** Input that can never succeed (bad message, unknown table, wrong column type). Acknowledge, never retry. */
export class InvalidInputError extends ArchiverError {
  readonly code = "INVALID_INPUT";

  constructor(field: string, message: string, options: { cause?: unknown } = {}) {
    super(`${field}: ${message}`, { field, ...options });
  }
}
