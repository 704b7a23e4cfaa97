/**
 * Base of the few errors the core raises on purpose. Each has a stable `code`
 * that the functions map to their transport (ack or retry, HTTP status).
 */
export abstract class ArchiverError extends Error {
  abstract readonly code: string;
  /** The input field or variable the error is about, when there is one. */
  readonly field: string | undefined;

  constructor(message: string, options: { field?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.field = options.field;
  }
}
