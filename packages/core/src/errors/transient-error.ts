import { ArchiverError } from "./archiver-error";

/** A failure that may pass on its own (database or Redis unreachable, quota). Retry. */
export class TransientError extends ArchiverError {
  readonly code = "TRANSIENT";
}
